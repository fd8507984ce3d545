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

/** Loads one key; what `readSingleFlight` returns. */
export interface KeyLoader<K, V> {
  load(key: K): Promise<V>;
}

/**
 * Reads run one at a time (single flight): the keys asked for while a read is in flight wait
 * and go together in the next read, which starts the moment the current one has answered. Under
 * load a read carries every request that arrived during the last one, so the number of queries
 * follows the database's latency, not the request rate. Every read starts after its callers
 * asked (nothing is cached), and each caller gets exactly its own key's answer; a failed read
 * fails each of its callers.
 */
export function readSingleFlight<K, V>(readMany: (keys: K[]) => Promise<Map<K, V>>, absent: () => V, maxBatchSize = 500): KeyLoader<K, V> {
  let waiting: Array<{ key: K; resolve: (value: V) => void; reject: (error: unknown) => void }> = [];
  let reading = false;

  const next = (): void => {
    if (reading || waiting.length === 0) return;
    const batch = waiting.slice(0, maxBatchSize);
    waiting = waiting.slice(maxBatchSize);
    reading = true;
    Promise.resolve()
      .then(() => readMany([...new Set(batch.map((entry) => entry.key))]))
      .then(
        (found) => {
          for (const entry of batch) entry.resolve(found.get(entry.key) ?? absent());
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        reading = false;
        next();
      })
      .catch(() => undefined);
  };

  return {
    load(key) {
      return new Promise<V>((resolve, reject) => {
        waiting.push({ key, resolve, reject });
        // After the other requests of this turn of the event loop have asked too.
        if (waiting.length === 1 && !reading) setImmediate(next);
      });
    },
  };
}
