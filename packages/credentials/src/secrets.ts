import { hash, randomBytes, randomInt } from 'node:crypto';
import { secretsEqual } from '@platform/runtime';

/** API key shape (real): `at_` + 29 characters of [A-Za-z0-9]. */
export const API_KEY_PATTERN = /^at_[A-Za-z0-9]{29}$/;
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function isApiKeyShape(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** A new API key from the CSPRNG (29 × log2(62) ≈ 173 bits). */
export function generateApiKey(): string {
  let key = 'at_';
  for (let index = 0; index < 29; index += 1) key += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return key;
}

/** SHA-256 hex digest: how keys and tokens are stored and looked up (never the secret itself). */
export function hashSecret(secret: string): string {
  // One-shot digest: no Hash object per call (every credential check hashes once or twice).
  return hash('sha256', secret, 'hex');
}

/** Constant-time equality of two secrets, lengths included (their SHA-256 digests are compared). */
export function constantTimeEqual(a: string, b: string): boolean {
  return secretsEqual(a, b);
}

export { randomBytes };
