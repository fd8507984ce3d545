import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError } from '@platform/wire';

/** Longest lifetime a service JWT may claim (CONTRACT §7: `exp` at most 5 minutes ahead). */
export const SERVICE_JWT_MAX_TTL_SECONDS = 300;
// Tolerated clock difference between the signing and the verifying host.
const CLOCK_SKEW_SECONDS = 5;

/** Verified claims of a service-to-service JWT. */
export interface ServiceJwtClaims {
  /** The calling service (for the logs; any non-empty value is accepted). */
  iss: string;
  /** Exactly the expected audience: a string, never an array holding it. */
  aud: string;
  exp: number;
  iat: number | undefined;
  /** The JWT's id, when it carries one: such a JWT is accepted once within its lifetime (`SeenJtis`). */
  jti: string | undefined;
}

export interface SignServiceJwtOptions {
  issuer: string;
  /** The called service, e.g. `user` or `auth`. */
  audience: string;
  secret: string;
  /** 1–300 seconds. */
  ttlSeconds: number;
  /** `jti` (e.g. `newJti()`): the user service then accepts this JWT once. */
  jti?: string;
}

// SPEED: jsonwebtoken, given the secret as a string, first tries to read it as a PEM key
// (createPrivateKey to sign, createPublicKey to verify), which fails after about 340 µs of
// OpenSSL work, and only then makes a secret key of it. The KeyObject made once per secret skips
// that: sign 354 → 9 µs, verify 343 → 7 µs (this 2-core machine, 6 Dec). It was most of a
// product gateway's CPU per call: one JWT per request to the usage API, each verified by the user
// service; one-at-a-time, 1,142 → 428–545 µs per call in the product app (docs/benchmarks.md,
// "Batch debits profiled and changed, 6 Dec 2026"). A handful of secrets at most (the current one
// and the one a rotation replaces); an empty secret stays a string, which jsonwebtoken refuses.
const MAX_SECRET_KEYS = 8;
const secretKeys = new Map<string, KeyObject>();
function secretKey(secret: string): KeyObject | string {
  if (secret === '') return secret;
  let key = secretKeys.get(secret);
  if (key === undefined) {
    if (secretKeys.size >= MAX_SECRET_KEYS) secretKeys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    secretKeys.set(secret, key);
  }
  return key;
}

/** Signs a short-lived HS256 service JWT for `Authorization: Bearer`. */
export function signServiceJwt(options: SignServiceJwtOptions): string {
  if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds < 1 || options.ttlSeconds > SERVICE_JWT_MAX_TTL_SECONDS) {
    throw new RangeError(`service JWT lifetime must be 1-${SERVICE_JWT_MAX_TTL_SECONDS} seconds`);
  }
  if (options.issuer === '') throw new RangeError('service JWT issuer must not be empty');
  return jwt.sign({}, secretKey(options.secret), {
    algorithm: 'HS256',
    issuer: options.issuer,
    audience: options.audience,
    expiresIn: options.ttlSeconds,
    ...(options.jti === undefined ? {} : { jwtid: options.jti }),
  });
}

/** Longest `jti` accepted (a UUID is 36 characters). */
const MAX_JTI_LENGTH = 128;

export interface VerifyServiceJwtOptions {
  audience: string;
  secret: string;
  /** Milliseconds since the epoch; for tests. */
  now?: () => number;
}

/**
 * Verifies a service JWT: HS256 only, `aud` exactly the expected audience (a string: an array
 * holding it is refused), a non-empty `iss`, an `exp` that is in the future but at most 5 minutes
 * ahead, and a `jti`, when given, that is a non-empty string of at most 128 characters. Anything else throws AppError('unauthenticated').
 */
export function verifyServiceJwt(token: string, options: VerifyServiceJwtOptions): ServiceJwtClaims {
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  let payload: unknown;
  try {
    payload = jwt.verify(token, secretKey(options.secret), {
      algorithms: ['HS256'],
      audience: options.audience,
      clockTimestamp: nowSeconds,
      clockTolerance: CLOCK_SKEW_SECONDS,
    });
  } catch (error) {
    throw new AppError('unauthenticated', { cause: error });
  }
  if (payload === null || typeof payload !== 'object') throw new AppError('unauthenticated');
  const { iss, aud, exp, iat, jti } = payload as Record<string, unknown>;
  if (typeof iss !== 'string' || iss === '') throw new AppError('unauthenticated');
  if (typeof exp !== 'number' || exp > nowSeconds + SERVICE_JWT_MAX_TTL_SECONDS + CLOCK_SKEW_SECONDS) throw new AppError('unauthenticated');
  if (aud !== options.audience) throw new AppError('unauthenticated');
  if (jti !== undefined && (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)) throw new AppError('unauthenticated');
  return { iss, aud, exp, iat: typeof iat === 'number' ? iat : undefined, jti };
}
