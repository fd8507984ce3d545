import { shardTagOf } from './token-format';

/**
 * Where the Redis access store keeps its keys (see services/auth/README.md, "Redis key layout").
 * Everything one check touches shares the hash tag `{<tag>}`, the first hex digits of the API
 * key's SHA-256, so every command and script stays in one Redis Cluster hash slot:
 * - `<prefix>{<tag>}:key:<keyHash>`        hash: `a` account id, `g` generation, `p<poolId>` = 1 per pool with credits
 * - `<prefix>{<tag>}:tok:<tokenHash>`      string `accountId:issuedAt:expiresAt:generation:keyHash`, EX = lifetime
 * - `<prefix>{<tag>}:toks:<keyHash>`       sorted set: the hashes of the key's tokens, scored by expiry (a rotation frees them)
 * - `<prefix>{<tag>}:rl:issue:<keyHash>`   the account's issuance window while this key is its key (fixed,
 *                                          TOKEN_RATE_PER_ACCOUNT; a rotation carries it to the new key)
 * - `<prefix>access:reconciled`            `<Redis run_id(s)>|<Postgres identity>` of the last reconciliation
 */
export interface AccessLayout {
  /** `tag`: the key's shard tag when the caller has it already. */
  keyRecord(keyHash: string, tag?: string): string;
  /** The prefix of the key records that share a shard tag (a token's script finds its key's record by it). */
  keyRecordPrefix(tag: string): string;
  token(tag: string, tokenHash: string): string;
  /** The key's tokens (a sorted set of token hashes in the key's slot). */
  keyTokens(keyHash: string, tag?: string): string;
  issuanceWindow(keyHash: string, tag?: string): string;
  reconciledMarker: string;
}

/** A prefix must not hold a hash tag of its own: the key's tag has to be the first `{…}`. */
export function isValidKeyPrefix(prefix: string): boolean {
  return !/[{}]/.test(prefix);
}

export function accessLayout(prefix: string): AccessLayout {
  if (!isValidKeyPrefix(prefix)) throw new Error('a Redis key prefix must not contain { or }');
  const slot = (tag: string): string => `${prefix}{${tag}}:`;
  return {
    keyRecord: (keyHash, tag = shardTagOf(keyHash)) => `${slot(tag)}key:${keyHash}`,
    keyRecordPrefix: (tag) => `${slot(tag)}key:`,
    token: (tag, tokenHash) => `${slot(tag)}tok:${tokenHash}`,
    keyTokens: (keyHash, tag = shardTagOf(keyHash)) => `${slot(tag)}toks:${keyHash}`,
    issuanceWindow: (keyHash, tag = shardTagOf(keyHash)) => `${slot(tag)}rl:issue:${keyHash}`,
    reconciledMarker: `${prefix}access:reconciled`,
  };
}
