import { AppError } from '@platform/common';
import type { KeyDirectory, TokenStore } from '@platform/credentials';

/** Seconds a client is asked to wait after a dependency failed. */
const RETRY_AFTER_SECONDS = 5;

/** A failed Postgres or Redis call becomes the contract's 503 (typed errors pass through). */
export function asUnavailable(error: unknown): AppError {
  return error instanceof AppError ? error : new AppError('unavailable', { cause: error, retryAfterSeconds: RETRY_AFTER_SECONDS });
}

export async function orUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asUnavailable(error);
  }
}

/** The token store with driver failures turned into 503s. */
export function guardTokenStore(store: TokenStore): TokenStore {
  return {
    mint: (request) => orUnavailable(store.mint(request)),
    lookup: (tokenHash) => orUnavailable(store.lookup(tokenHash)),
    revoke: (tokenHash) => orUnavailable(store.revoke(tokenHash)),
    bumpGeneration: (accountId, atLeast) => orUnavailable(store.bumpGeneration(accountId, atLeast)),
    currentGeneration: (accountId) => orUnavailable(store.currentGeneration(accountId)),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

/** The key directory with driver failures turned into 503s. */
export function guardKeyDirectory(directory: KeyDirectory): KeyDirectory {
  return { findActive: (keyHash) => orUnavailable(directory.findActive(keyHash)) };
}
