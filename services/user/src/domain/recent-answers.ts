import { LRUCache } from 'lru-cache';
import type { StoredAnswer } from './usage-batch-store';

/**
 * Answers of granted debits this process has seen committed, by requestId, so that a replay is
 * answered without a batch. Safe to keep: a kept answer never changes while its row lives
 * (CONTRACT §9: at least 24 hours), and an entry older than `maxAgeMs` is forgotten. Bounded:
 * past `maxEntries` the least recently used entry goes.
 */
export interface RecentAnswers {
  get(requestId: string): StoredAnswer | undefined;
  set(requestId: string, answer: StoredAnswer): void;
}

export function createRecentAnswers(options: { maxEntries: number; maxAgeMs: number; now?: () => number }): RecentAnswers {
  // lru-cache, not a Map evicted through keys().next(): a Map keeps a deleted entry's slot until
  // it rehashes, and every new iterator steps over those slots (3.7 % of the usage API's CPU).
  const entries = new LRUCache<string, StoredAnswer>({
    max: options.maxEntries,
    ttl: options.maxAgeMs,
    // The clock read at each call, not cached for a millisecond: an injected clock moves at once.
    ttlResolution: 0,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });
  return {
    get: (requestId) => entries.get(requestId),
    set(requestId, answer) {
      if (!entries.has(requestId)) entries.set(requestId, answer);
    },
  };
}
