import { AppError } from '@platform/common';

/** A fixed-window counter per key (rate-limiter-flexible on Redis, or in memory). */
export interface WindowCounter {
  /** Milliseconds until the window ends when `key` is already over the limit, else undefined. */
  overLimit(key: string): Promise<number | undefined>;
  /** Counts one event; milliseconds until the window ends when this event went over the limit, else undefined. */
  count(key: string): Promise<number | undefined>;
}

/** The two limits of CONTRACT §4.1/§9: failed attempts per client address, issuances per account. */
export interface AttemptLimits {
  /** Refuses (429) an address that is over its failure limit, until its window ends. */
  ensureAddressAllowed(address: string): Promise<void>;
  /** Counts a 401; refuses (429) when this failure takes the address over its limit. */
  recordFailure(address: string): Promise<void>;
  /** Counts an issuance; refuses (429) when it takes the account over its limit. */
  countIssuance(accountId: number): Promise<void>;
}

/** The 429 of a limit, with Retry-After in whole seconds (at least 1). */
export function tooMany(msBeforeNext: number): AppError {
  return new AppError('rate_limited', { retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) });
}

export function createAttemptLimits(counters: { failuresByAddress: WindowCounter; issuancesByAccount: WindowCounter }): AttemptLimits {
  return {
    async ensureAddressAllowed(address) {
      const blockedFor = await counters.failuresByAddress.overLimit(address);
      if (blockedFor !== undefined) throw tooMany(blockedFor);
    },
    async recordFailure(address) {
      const blockedFor = await counters.failuresByAddress.count(address);
      if (blockedFor !== undefined) throw tooMany(blockedFor);
    },
    async countIssuance(accountId) {
      const blockedFor = await counters.issuancesByAccount.count(String(accountId));
      if (blockedFor !== undefined) throw tooMany(blockedFor);
    },
  };
}
