import type { Request } from 'express';
import { AppError } from '@platform/wire';
import { missingCredential } from '@platform/credentials';
import type { AttemptLimits } from '../domain/attempt-limits';
import { clientAddress, type Authorization } from './authorization';

/**
 * Counts a 401 as a failed attempt of the client address (CONTRACT §9): throws the 429 when the
 * address is over its limit with it. Other errors, and requests that succeed, are neither counted
 * nor checked; the address is worked out only for a failure (X-Forwarded-For parsing is not free).
 */
export async function countFailure(limits: AttemptLimits, req: Request, error: unknown): Promise<void> {
  if (error instanceof AppError && error.code === 'unauthenticated') await limits.recordFailure(clientAddress(req));
}

/** Runs an endpoint's work counting its 401s as failed attempts of the client address (`countFailure`). */
export async function countingFailures(limits: AttemptLimits, req: Request, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    await countFailure(limits, req, error);
    throw error;
  }
}

/** Throws the 401 when no credential was read: `missing_credential` when the request sent none. */
export function required<T>(value: T | undefined, authorization: Authorization): T {
  if (value !== undefined) return value;
  throw authorization.scheme === 'none' ? missingCredential() : new AppError('unauthenticated');
}
