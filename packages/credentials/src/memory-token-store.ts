import { decodeRecord, encodeRecord, type MintRequest, type TokenRecord, type TokenStore } from './token-store';

/** In-process token store for the embedded quickstart: same rules as the Redis store. */
export function createMemoryTokenStore(now: () => number = Date.now): TokenStore {
  const tokens = new Map<string, { value: string; expiresAtMs: number }>();
  const generations = new Map<number, number>();
  const sweep = setInterval(() => {
    const at = now();
    for (const [hash, entry] of tokens) if (entry.expiresAtMs <= at) tokens.delete(hash);
  }, 60_000);
  sweep.unref();

  return {
    mint(request: MintRequest) {
      let current = generations.get(request.accountId);
      if (current === undefined || current < request.expectedGeneration) {
        current = request.expectedGeneration;
        generations.set(request.accountId, current);
      }
      if (current > request.expectedGeneration) return Promise.resolve(undefined);
      const record = `${encodeRecord(request.accountId, request.issuedAt, request.issuedAt + request.ttlSeconds)}:${current}`;
      tokens.set(request.tokenHash, { value: record, expiresAtMs: now() + request.ttlSeconds * 1000 });
      return Promise.resolve(current);
    },
    lookup(tokenHash: string): Promise<TokenRecord | undefined> {
      const entry = tokens.get(tokenHash);
      if (!entry || entry.expiresAtMs <= now()) return Promise.resolve(undefined);
      const record = decodeRecord(entry.value);
      if (!record || generations.get(record.accountId) !== record.generation) return Promise.resolve(undefined);
      return Promise.resolve(record);
    },
    revoke(tokenHash: string) {
      tokens.delete(tokenHash);
      return Promise.resolve();
    },
    bumpGeneration(accountId: number, atLeast: number) {
      const next = Math.max((generations.get(accountId) ?? 0) + 1, atLeast);
      generations.set(accountId, next);
      return Promise.resolve(next);
    },
    currentGeneration(accountId: number) {
      return Promise.resolve(generations.get(accountId));
    },
    ping: () => Promise.resolve(),
    close() {
      clearInterval(sweep);
      return Promise.resolve();
    },
  };
}
