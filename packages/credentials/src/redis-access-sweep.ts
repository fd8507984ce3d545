import type { AccessLayout } from './access-layout';
import type { AccessSweep } from './access-store';
import type { RedisClient } from './redis-client';
import { forEachMaster } from './redis-identity';

/** Names one SCAN step looks at (a hint to the server): a batch of key hashes comes from each step. */
const SCAN_COUNT = 1000;

const escapeGlob = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The sweep of a full reconciliation on Redis or a Redis Cluster. The names a key leaves are its
 * record, its token set and its issuance window (access-layout.ts), each ending in the key's hash;
 * its tokens are named by their own hash, and found through the token set. SCAN runs on every
 * master (a cluster's keys are spread over them; SCAN through the cluster client would see one
 * node only); the removal goes through the client, which routes each key to its slot.
 */
export function redisAccessSweep(
  redis: RedisClient,
  prefix: string,
  layout: AccessLayout,
  dropKey: (keyHash: string) => Promise<void>,
): AccessSweep {
  const pattern = `${escapeGlob(prefix)}{*}:*`;
  const name = new RegExp(`^${escapeRegExp(prefix)}\\{[0-9a-f]+\\}:(?:key|toks|rl:issue):([0-9a-f]{64})$`);
  return {
    storedKeys: (visit) =>
      forEachMaster(redis, async (node) => {
        let cursor = '0';
        do {
          const [next, names] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
          cursor = next;
          const hashes = new Set<string>();
          for (const each of names) {
            const keyHash = name.exec(each)?.[1];
            if (keyHash !== undefined) hashes.add(keyHash);
          }
          if (hashes.size > 0) await visit([...hashes]);
        } while (cursor !== '0');
      }),
    async forgetKeys(keyHashes) {
      await Promise.all(
        keyHashes.map(async (keyHash) => {
          await dropKey(keyHash);
          await redis.unlink(layout.issuanceWindow(keyHash));
        }),
      );
    },
  };
}
