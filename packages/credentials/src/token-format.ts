import { hash, randomFillSync } from 'node:crypto';

// tk_ + 43 chars (32 random bytes, base64url) + 4 hex chars of shard tag + 6 chars of checksum.
// The tag is the first 4 hex digits of the SHA-256 of the API key the token was minted from: it
// names the Redis hash slot where the token sits beside that key's record (CONTRACT §1, a
// non-secret shard tag), so a token check touches one slot. The checksum covers body and tag and
// lets a garbled or made-up token be refused without a store lookup; it is not a secret.
const TOKEN_PATTERN = /^tk_([A-Za-z0-9_-]{43}[0-9a-f]{4})([A-Za-z0-9_-]{6})$/;
// A page session (CONTRACT §4.7) has the same layout under its own prefix, so that only the
// checks that accept page sessions (the account's own pages and data) ever look one up.
const PAGE_SESSION_PATTERN = /^ps_([A-Za-z0-9_-]{43}[0-9a-f]{4})([A-Za-z0-9_-]{6})$/;

/** Hex digits of the key hash that make a key's shard tag. */
export const SHARD_TAG_LENGTH = 4;

function checksum(body: string): string {
  return hash('sha256', body, 'base64url').slice(0, 6);
}

const TOKEN_BYTES = 32;
// CSPRNG output fetched 128 tokens at a time: one call into OpenSSL costs about as much for
// 4 KiB as for 32 bytes (crypto.randomUUID keeps a cache the same way). Each byte is used once.
const entropy = Buffer.alloc(TOKEN_BYTES * 128);
let entropyOffset = entropy.length;

function randomTokenBytes(): Buffer {
  if (entropyOffset + TOKEN_BYTES > entropy.length) {
    randomFillSync(entropy);
    entropyOffset = 0;
  }
  const bytes = entropy.subarray(entropyOffset, entropyOffset + TOKEN_BYTES);
  entropyOffset += TOKEN_BYTES;
  return bytes;
}

/** The shard tag of an API key: the first hex digits of its SHA-256 (`keyHash`). */
export function shardTagOf(keyHash: string): string {
  return keyHash.slice(0, SHARD_TAG_LENGTH);
}

/**
 * A new opaque access token with 256 bits from the CSPRNG, tagged with the shard of the key it is
 * minted from (`keyHash`: the key's SHA-256 hex). Never matches the API-key pattern.
 */
export function generateAccessToken(keyHash: string, prefix: 'tk_' | 'ps_' = 'tk_'): string {
  const body = `${randomTokenBytes().toString('base64url')}${shardTagOf(keyHash)}`;
  return `${prefix}${body}${checksum(body)}`;
}

/** A new account-page session (CONTRACT §4.7): a token no product and no token endpoint accepts. */
export const generatePageSession = (keyHash: string): string => generateAccessToken(keyHash, 'ps_');

const intact = (pattern: RegExp, value: string): boolean => {
  const match = pattern.exec(value);
  return match !== null && checksum(match[1] as string) === match[2];
};

/** True when the value has the token shape and an intact checksum. */
export function isWellFormedToken(value: string): boolean {
  return intact(TOKEN_PATTERN, value);
}

/** True when the value has the page-session shape and an intact checksum. */
export function isWellFormedPageSession(value: string): boolean {
  return intact(PAGE_SESSION_PATTERN, value);
}

/** The shard tag a well-formed token or page session carries (check its shape first). */
export function tokenShardTag(token: string): string {
  return token.slice(46, 46 + SHARD_TAG_LENGTH);
}
