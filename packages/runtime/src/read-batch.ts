import DataLoader from 'dataloader';

/**
 * Reads asked for in one turn of the event loop, run as one read (DataLoader, without its
 * cache: every read starts after every caller that shares it asked, so no caller gets an answer
 * older than its own request). Under load the balance reads of many requests share one round
 * trip to Postgres, and the checks of one API key or token one lookup in Redis, instead of one each.
 * Every caller still gets exactly its own key's answer; a failed read fails each of them.
 */
export function readBatch<K, V>(
  readMany: (keys: K[]) => Promise<Map<K, V>>,
  absent: () => V,
  /** Most reads (before removing repeated keys) in one `readMany`; the turn's later reads form the next. */
  maxBatchSize = 100,
): DataLoader<K, V> {
  return new DataLoader<K, V>(
    async (keys) => {
      const found = await readMany([...new Set(keys)]);
      return keys.map((key) => found.get(key) ?? absent());
    },
    // After the I/O callbacks of this turn (and their promise continuations) have asked.
    { cache: false, maxBatchSize, batchScheduleFn: (callback) => setImmediate(callback) },
  );
}
