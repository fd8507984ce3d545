import type { RefusalFinding } from '@platform/wire';
import type { RedisClient } from './redis-client';
import type { ExplainKeyRefusal } from './refusals';

/**
 * Which API key bought each account-page session (CONTRACT §4.7), by their SHA-256s, for as long
 * as the session could live. The access store drops a session with its key's record (a rotation,
 * a disabling), so this is what lets a refused session say why: a disabled account's page then
 * says "disabled" rather than "session ended". Kept apart from the access store, in Redis with a
 * TTL (shared by every replica), or in memory for the embedded store.
 */
export interface PageSessionKeys {
  remember(sessionHash: string, keyHash: string, ttlSeconds: number): Promise<void>;
  keyOf(sessionHash: string): Promise<string | undefined>;
}

export function redisPageSessionKeys(redis: RedisClient, keyPrefix: string): PageSessionKeys {
  return {
    async remember(sessionHash, keyHash, ttlSeconds) {
      await redis.set(`${keyPrefix}${sessionHash}`, keyHash, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
    async keyOf(sessionHash) {
      return (await redis.get(`${keyPrefix}${sessionHash}`)) ?? undefined;
    },
  };
}

/** In-process (the embedded quickstart, unit tests); expired entries are dropped as new ones come. */
export function memoryPageSessionKeys(now: () => number = Date.now): PageSessionKeys {
  const kept = new Map<string, { keyHash: string; until: number }>();
  return {
    remember(sessionHash, keyHash, ttlSeconds) {
      const at = now();
      // Insertion order is expiry order (every session lives as long): the oldest go first.
      for (const [hash, entry] of kept) {
        if (entry.until > at) break;
        kept.delete(hash);
      }
      kept.set(sessionHash, { keyHash, until: at + ttlSeconds * 1000 });
      return Promise.resolve();
    },
    keyOf(sessionHash) {
      const entry = kept.get(sessionHash);
      return Promise.resolve(entry !== undefined && entry.until > now() ? entry.keyHash : undefined);
    },
  };
}

/** Why a page session the access store does not know was refused, from its SHA-256. */
export type ExplainSessionRefusal = (sessionHash: string) => Promise<RefusalFinding>;

/**
 * A refused page session's reason (CONTRACT §2): `account_disabled` when its account was
 * disabled, else `invalid_credential` (expired, signed out, or its key replaced: the table puts a
 * token of a replaced key there).
 */
export function sessionRefusalExplainer(keys: PageSessionKeys, explainKey: ExplainKeyRefusal): ExplainSessionRefusal {
  return async (sessionHash) => {
    const keyHash = await keys.keyOf(sessionHash);
    if (keyHash === undefined) return { reason: 'invalid_credential' };
    const { reason } = await explainKey(keyHash);
    return { reason: reason === 'account_disabled' ? reason : 'invalid_credential' };
  };
}
