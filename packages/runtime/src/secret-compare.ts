import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a secret: a fixed 32 bytes whatever the secret's length. */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/**
 * Whether two secrets are equal, in time that depends on neither their content nor their
 * lengths: the fixed-size SHA-256 digests are compared with timingSafeEqual (a plain length
 * check first would tell an attacker the secret's length).
 */
export function secretsEqual(presented: string, expected: string | Buffer): boolean {
  const expectedDigest = typeof expected === 'string' ? secretDigest(expected) : expected;
  return timingSafeEqual(secretDigest(presented), expectedDigest);
}
