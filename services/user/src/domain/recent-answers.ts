import type { StoredAnswer } from './usage-batch-store';

/**
 * Answers of granted debits this process has seen committed, by requestId, so that a replay is
 * answered without a batch. Safe to keep: a kept answer never changes while its row lives
 * (CONTRACT §9: at least 24 hours), and an entry older than `maxAgeMs` is forgotten. Bounded:
 * past `maxEntries` the oldest entry goes.
 */
export interface RecentAnswers {
  get(requestId: string): StoredAnswer | undefined;
  set(requestId: string, answer: StoredAnswer): void;
}

export function createRecentAnswers(options: { maxEntries: number; maxAgeMs: number; now?: () => number }): RecentAnswers {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { answer: StoredAnswer; at: number }>();
  return {
    get(requestId) {
      const entry = entries.get(requestId);
      if (!entry) return undefined;
      if (now() - entry.at <= options.maxAgeMs) return entry.answer;
      entries.delete(requestId);
      return undefined;
    },
    set(requestId, answer) {
      if (entries.has(requestId)) return;
      entries.set(requestId, { answer, at: now() });
      if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
}
