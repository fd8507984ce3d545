import DataLoader from 'dataloader';

/**
 * Reads asked for in one turn of the event loop, run as one query (DataLoader, without its
 * cache: every request reads fresh). Under load the credential checks of many balance requests
 * answer together (Redis replies arrive in one read); their balance reads then share one round
 * trip to Postgres instead of taking a pool connection each. Every caller still gets exactly its
 * own key's answer; a failed query fails each of them.
 */
export function readBatch<K, V>(readMany: (keys: K[]) => Promise<Map<K, V>>, absent: () => V): DataLoader<K, V> {
  return new DataLoader<K, V>(
    async (keys) => {
      const found = await readMany([...new Set(keys)]);
      return keys.map((key) => found.get(key) ?? absent());
    },
    // After the I/O callbacks of this turn (and their promise continuations) have asked.
    { cache: false, maxBatchSize: 100, batchScheduleFn: (callback) => setImmediate(callback) },
  );
}
