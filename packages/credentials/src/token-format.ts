import { hash, randomFillSync } from 'node:crypto';

// tk_ + 43 chars (32 random bytes, base64url) + 6 chars of checksum. The checksum lets a
// garbled or made-up token be refused without a store lookup; it is not a secret.
const TOKEN_PATTERN = /^tk_([A-Za-z0-9_-]{43})([A-Za-z0-9_-]{6})$/;

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

/** A new opaque access token with 256 bits from the CSPRNG. Never matches the API-key pattern. */
export function generateAccessToken(): string {
  const body = randomTokenBytes().toString('base64url');
  return `tk_${body}${checksum(body)}`;
}

/** True when the value has the token shape and an intact checksum. */
export function isWellFormedToken(value: string): boolean {
  const match = TOKEN_PATTERN.exec(value);
  return match !== null && checksum(match[1] as string) === match[2];
}
