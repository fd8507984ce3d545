import type { Redis } from 'ioredis';
import type { ActiveKey } from './access-store';

/** A key record's fields (HGETALL: `a` account, `g` generation, `p<poolId>` per pool with credits) as the key a check sees. */
export function activeKeyOf(fields: Record<string, string>): ActiveKey | undefined {
  if (fields.a === undefined || fields.g === undefined) return undefined;
  return { accountId: Number(fields.a), generation: Number(fields.g), hasCredits: Object.keys(fields).length > 2 };
}

/**
 * The key records at these Redis keys, read by one pipeline on one Redis server: one write, one
 * HGETALL each (every command in its own key's slot). Rejects with the first failed read, as a
 * check of each key alone would fail.
 *
 * SPEED: the credential checks of one event-loop turn (a usage batch over 100 accounts: 100
 * keys) were one auto-pipelined HGETALL each, with an outer promise, a callback and a pipeline
 * lookup per key in ioredis, and an async lookup per key in verify.ts: ioredis was 21 % of the
 * batch route's CPU. With this read (and the ledger entries' members named, credit-writes.ts), the
 * user service's CPU per debit over 100 accounts went from 55 to 43 µs and over 1,000 from 70 to
 * 57 µs, in one run against main on a shared machine where Postgres's unchanged work also moved
 * 5–13 % (docs/benchmarks.md, "Batch debits: API keys read in one pipeline, 6 Dec 2026").
 */
export async function findKeysAtOnce(redis: Redis, recordKeys: readonly string[]): Promise<(ActiveKey | undefined)[]> {
  if (recordKeys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const recordKey of recordKeys) pipeline.hgetall(recordKey);
  const replies = (await pipeline.exec()) ?? [];
  if (replies.length !== recordKeys.length) throw new Error('a Redis pipeline answered fewer replies than it was sent commands');
  return replies.map(([error, fields]) => {
    if (error) throw error;
    return activeKeyOf(fields as Record<string, string>);
  });
}
