import { AppError } from '@platform/common';
import type { AttemptLimits } from '../domain/attempt-limits';
import type { AddressGuard } from '../domain/issue-token';

/**
 * Runs an endpoint's work counting its 401s as failed attempts of the client address
 * (CONTRACT §9); the failure that takes the address over its limit is answered 429.
 */
export async function countingFailures(limits: AttemptLimits, address: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof AppError && error.code === 'unauthenticated') await limits.recordFailure(address);
    throw error;
  }
}

/**
 * The check "is this address over its failure limit?", which CONTRACT §2/§9 puts before every
 * other answer. It is started at once and runs beside the request's other I/O; whichever
 * answer the request is about to give, the address's 429 takes precedence. With `lazy`, it is
 * started only when something asks for it: a step that failed (guard), or never, when the
 * issuance gate makes the check in its own round trip and settles it.
 */
export class AddressCheck implements AddressGuard {
  private outcome: Promise<void> | undefined;

  constructor(
    private readonly limits: AttemptLimits,
    readonly address: string,
    options: { lazy?: boolean } = {},
  ) {
    if (options.lazy !== true) void this.start();
  }

  /** Resolves when the address may proceed; rejects with the 429. */
  get allowed(): Promise<void> {
    return this.outcome ?? this.start();
  }

  settle(outcome: Promise<void>): void {
    if (this.outcome !== undefined) return;
    // Awaited wherever the request answers; this keeps an early rejection from counting as unhandled.
    outcome.catch(() => undefined);
    this.outcome = outcome;
  }

  /** Runs a step of the request; if it fails, an over-limit address is answered 429 instead. */
  async guard<T>(step: () => T | Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      await this.allowed;
      throw error;
    }
  }

  private start(): Promise<void> {
    const outcome = this.limits.ensureAddressAllowed(this.address);
    this.settle(outcome);
    return outcome;
  }
}

/** Throws the 401 when no credential was presented. */
export function required<T>(value: T | undefined): T {
  if (value === undefined) throw new AppError('unauthenticated');
  return value;
}
