import {
  accessLayout,
  encodeTokenRecord,
  generateAccessToken,
  hashSecret,
  shardTagOf,
  type AccessStore,
  type RedisClient,
} from '@platform/credentials';

/** Where a test writes the tokens it mints: the Redis and the access store of the service's key prefix. */
export interface TokenTarget {
  redis: RedisClient;
  access: AccessStore;
  keyPrefix: string;
}

/**
 * A token minted from the key as the auth service mints it, written straight to the store (so also
 * for an account whose pools are at 0 now: it was minted before they emptied).
 */
export async function mintAccessToken(target: TokenTarget, apiKey: string, ttlSeconds = 3600): Promise<string> {
  const keyHash = hashSecret(apiKey);
  const key = await target.access.findKey(keyHash);
  if (!key) throw new Error('no token: the key is not active');
  const token = generateAccessToken(keyHash);
  const issuedAt = Math.floor(Date.now() / 1000);
  const record = encodeTokenRecord({
    accountId: key.accountId,
    generation: key.generation,
    issuedAt,
    expiresAt: issuedAt + ttlSeconds,
    keyHash,
  });
  await target.redis.set(accessLayout(target.keyPrefix).token(shardTagOf(keyHash), hashSecret(token)), record, 'EX', ttlSeconds);
  return token;
}
