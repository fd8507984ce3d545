import { type AppError, rateLimited } from '@platform/wire';

/** A fixed-window counter per key (rate-limiter-flexible on Redis, or in memory). */
export interface WindowCounter {
  /** Counts one event; milliseconds until the window ends when this event went over the limit, else undefined. */
  count(key: string): Promise<number | undefined>;
}

/**
 * Failed attempts per client address (CONTRACT §4.1, §9 revised). Only failures are counted and
 * only a failure is refused: once an address is over its limit, a request from it whose
 * credential fails gets 429 instead of 401 until its window ends, while a request with a valid
 * credential is served (so one client behind a shared address cannot lock the others out).
 * Issuances per account are counted by the access store, in the issuance's own round trip.
 */
export interface AttemptLimits {
  /** Counts a 401; refuses (429) when the address is over its limit with it. */
  recordFailure(address: string): Promise<void>;
}

/** The 429 of a limit, with Retry-After in whole seconds (at least 1). */
export function tooMany(msBeforeNext: number): AppError {
  return rateLimited(msBeforeNext);
}

export function createAttemptLimits(counters: { failuresByAddress: WindowCounter }): AttemptLimits {
  return {
    async recordFailure(address) {
      const blockedFor = await counters.failuresByAddress.count(address);
      if (blockedFor !== undefined) throw tooMany(blockedFor);
    },
  };
}
