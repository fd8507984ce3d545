import { AppError } from './errors';

/** Seconds a client should wait after a 503 (CONTRACT: `Retry-After`). */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The contract's 503 (retry later) for a dependency that failed, with the failure as its cause.
 * Here, beside AppError, so that a store or a credential check can answer it without the HTTP kernel.
 */
export function unavailable(cause?: unknown, retryAfterSeconds: number = RETRY_AFTER_SECONDS): AppError {
  return new AppError('unavailable', { retryAfterSeconds, cause });
}

/** The contract's 429: `Retry-After` is the wait left, in whole seconds, at least 1. */
export function rateLimited(msBeforeNext: number): AppError {
  return new AppError('rate_limited', { retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) });
}
