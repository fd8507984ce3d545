import { AppError } from './errors';

/** Seconds a client should wait after a 503 (CONTRACT: `Retry-After`). */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The contract's 503 (retry later) for a dependency that failed, with the failure as its cause.
 * Here, beside AppError, so that a store or a credential check can answer it without the HTTP kernel.
 */
export function unavailable(cause?: unknown): AppError {
  return new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause });
}
