import { AppError } from '@platform/common';
import type { AttemptLimits } from '../domain/attempt-limits';

/**
 * Runs an endpoint's work counting its 401s as failed attempts of the client address
 * (CONTRACT §9): a 401 of an address that is over its limit is answered 429 instead. Requests
 * that succeed are neither counted nor checked.
 */
export async function countingFailures(limits: AttemptLimits, address: () => string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    // The address is worked out only for a failure (X-Forwarded-For parsing is not free).
    if (error instanceof AppError && error.code === 'unauthenticated') await limits.recordFailure(address());
    throw error;
  }
}

/** Throws the 401 when no credential was presented. */
export function required<T>(value: T | undefined): T {
  if (value === undefined) throw new AppError('unauthenticated');
  return value;
}

/**
 * Validates a request's parameters; when they are invalid, the credential is checked first, so
 * that a bad credential is a 401 before any 422 (CONTRACT §2) while a valid request costs no
 * separate credential lookup.
 */
export async function parametersAfterCredential<T>(read: () => T, authenticate: () => Promise<void>): Promise<T> {
  try {
    return read();
  } catch (invalid) {
    await authenticate();
    throw invalid;
  }
}
