import { randomUUID } from 'node:crypto';
import type { AccessStore, ActiveKey, IssueOutcome, TokenRecord } from './access-store';
import { hashSecret } from './secrets';

interface KeyEntry {
  accountId: number;
  generation: number;
  pools: Set<number>;
}

/**
 * In-process access store for the embedded quickstart: the same records and rules as the Redis
 * store, in this process's memory. Its identity never changes while the process lives (there is
 * no loss to notice), but it starts empty, so the first service reconciles it once at start.
 */
export function createMemoryAccessStore(now: () => number = Date.now): AccessStore {
  const keys = new Map<string, KeyEntry>();
  const tokens = new Map<string, { record: TokenRecord; expiresAtMs: number }>();
  // The hashes of each key's tokens, so that a key's removal frees them (as the Redis store does).
  const tokensOfKey = new Map<string, Set<string>>();
  const windows = new Map<string, { count: number; endsAtMs: number }>();
  const serverId = `memory-${randomUUID()}`;
  let reconciledFor: string | undefined;
  const sweep = setInterval(() => {
    const at = now();
    for (const [hash, entry] of tokens) {
      if (entry.expiresAtMs > at) continue;
      tokens.delete(hash);
      tokensOfKey.get(entry.record.keyHash)?.delete(hash);
    }
    for (const [keyHash, hashes] of tokensOfKey) if (hashes.size === 0) tokensOfKey.delete(keyHash);
    for (const [key, window] of windows) if (window.endsAtMs <= at) windows.delete(key);
  }, 60_000);
  sweep.unref();

  const countIssuance = (keyHash: string, windowSeconds: number): { count: number; msLeft: number } => {
    const at = now();
    let window = windows.get(keyHash);
    if (!window || window.endsAtMs <= at) {
      window = { count: 0, endsAtMs: at + windowSeconds * 1000 };
      windows.set(keyHash, window);
    }
    window.count += 1;
    return { count: window.count, msLeft: window.endsAtMs - at };
  };

  const deleteKeys = (keyHashes: readonly string[]): void => {
    for (const keyHash of keyHashes) {
      keys.delete(keyHash);
      for (const tokenHash of tokensOfKey.get(keyHash) ?? []) tokens.delete(tokenHash);
      tokensOfKey.delete(keyHash);
    }
  };

  const activeKey = (keyHash: string): ActiveKey | undefined => {
    const key = keys.get(keyHash);
    return key ? { accountId: key.accountId, generation: key.generation, hasCredits: key.pools.size > 0 } : undefined;
  };

  const liveToken = (tokenHash: string): TokenRecord | undefined => {
    const entry = tokens.get(tokenHash);
    if (!entry || entry.expiresAtMs <= now()) return undefined;
    return keys.get(entry.record.keyHash)?.generation === entry.record.generation ? entry.record : undefined;
  };

  return {
    issue(request): Promise<IssueOutcome> {
      const key = keys.get(request.keyHash);
      if (!key || (request.accountId !== undefined && request.accountId !== key.accountId)) {
        return Promise.resolve({ outcome: 'unknown_key' });
      }
      if (key.pools.size === 0 && request.anyBalance !== true) return Promise.resolve({ outcome: 'no_credits' });
      const counted = countIssuance(request.keyHash, request.limit.windowSeconds);
      if (counted.count > request.limit.points) return Promise.resolve({ outcome: 'limited', msBeforeNext: counted.msLeft });
      const record: TokenRecord = {
        accountId: key.accountId,
        generation: key.generation,
        issuedAt: request.issuedAt,
        expiresAt: request.issuedAt + request.ttlSeconds,
        keyHash: request.keyHash,
      };
      const tokenHash = hashSecret(request.token);
      tokens.set(tokenHash, { record, expiresAtMs: now() + request.ttlSeconds * 1000 });
      const ofKey = tokensOfKey.get(request.keyHash) ?? new Set<string>();
      tokensOfKey.set(request.keyHash, ofKey.add(tokenHash));
      return Promise.resolve({ outcome: 'issued', accountId: key.accountId, generation: key.generation });
    },
    findKey: (keyHash) => Promise.resolve(activeKey(keyHash)),
    findKeys: (keyHashes) => Promise.resolve(keyHashes.map(activeKey)),
    lookupToken: (token, tokenHash = hashSecret(token)) => Promise.resolve(liveToken(tokenHash)),
    revokeToken(token) {
      tokens.delete(hashSecret(token));
      return Promise.resolve();
    },
    putKeys(records) {
      for (const record of records) {
        const kept = keys.get(record.keyHash)?.generation ?? record.generation;
        keys.set(record.keyHash, {
          accountId: record.accountId,
          generation: Math.max(kept, record.generation),
          pools: new Set(record.creditedPools),
        });
      }
      return Promise.resolve();
    },
    deleteKeys(keyHashes) {
      deleteKeys(keyHashes);
      return Promise.resolve();
    },
    carryIssuanceWindow(fromKeyHash, toKeyHash) {
      const from = windows.get(fromKeyHash);
      const to = windows.get(toKeyHash);
      if (from && from.endsAtMs > now() && (!to || to.endsAtMs <= now() || to.count < from.count)) windows.set(toKeyHash, { ...from });
      return Promise.resolve();
    },
    setPoolCredit(keyHashes, poolId, credited) {
      for (const keyHash of keyHashes) {
        const pools = keys.get(keyHash)?.pools;
        if (credited) pools?.add(poolId);
        else pools?.delete(poolId);
      }
      return Promise.resolve();
    },
    storedKeys: (visit) => visit([...new Set([...keys.keys(), ...tokensOfKey.keys(), ...windows.keys()])]),
    forgetKeys(keyHashes) {
      deleteKeys(keyHashes);
      for (const keyHash of keyHashes) windows.delete(keyHash);
      return Promise.resolve();
    },
    identity: () => Promise.resolve({ serverId, reconciledFor }),
    markReconciled(marker) {
      reconciledFor = marker;
      return Promise.resolve();
    },
    ping: () => Promise.resolve(),
    close() {
      clearInterval(sweep);
      return Promise.resolve();
    },
  };
}
