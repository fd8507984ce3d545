import { createHash, randomBytes } from 'node:crypto';

// tk_ + 43 chars (32 random bytes, base64url) + 6 chars of checksum. The checksum lets a
// garbled or made-up token be refused without a store lookup; it is not a secret.
const TOKEN_PATTERN = /^tk_([A-Za-z0-9_-]{43})([A-Za-z0-9_-]{6})$/;

function checksum(body: string): string {
  return createHash('sha256').update(body).digest('base64url').slice(0, 6);
}

/** A new opaque access token with 256 bits from the CSPRNG. Never matches the API-key pattern. */
export function generateAccessToken(): string {
  const body = randomBytes(32).toString('base64url');
  return `tk_${body}${checksum(body)}`;
}

/** True when the value has the token shape and an intact checksum. */
export function isWellFormedToken(value: string): boolean {
  const match = TOKEN_PATTERN.exec(value);
  return match !== null && checksum(match[1] as string) === match[2];
}
