import type { Request } from 'express';
import { AppError } from '@platform/wire';
import { verifyServiceJwt, type ServiceJwtClaims } from '@platform/credentials';

/** `messages` of the 401 for a missing or bad service JWT; a bad customer credential keeps the contract's 401 sentence. */
export const INVALID_SERVICE_TOKEN = 'Invalid service token.';

// jsonwebtoken's verify with a string secret costs about as much as the rest of a usage
// request. A product gateway sends the same JWT for a while, so JWTs that verified are kept
// until they expire: a service JWT cannot be revoked, and its signature and claims never change.
const MAX_KEPT = 1000;
// As verifyServiceJwt: an `exp` this many seconds past is still accepted (clock skew).
const CLOCK_SKEW_SECONDS = 5;

/**
 * Checks `Authorization: Bearer <service JWT>` (CONTRACT §7), remembering the JWTs that verified
 * until they expire. `previous` (SERVICE_JWT_SECRET_PREVIOUS) is accepted beside `secret` while a
 * rotation rolls out: product apps move to the new secret one by one, none is refused meanwhile.
 */
export function createServiceJwtCheck(secret: string, now: () => number = Date.now, previous?: string): (req: Request) => ServiceJwtClaims {
  const secrets = previous === undefined ? [secret] : [secret, previous];
  const verify = (token: string): ServiceJwtClaims => {
    let failure: unknown;
    for (const candidate of secrets) {
      try {
        return verifyServiceJwt(token, { audience: 'user', secret: candidate, now });
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  };
  const verified = new Map<string, ServiceJwtClaims>();
  return (req) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const kept = verified.get(token);
    const nowSeconds = Math.floor(now() / 1000);
    if (kept && nowSeconds < kept.exp + CLOCK_SKEW_SECONDS) return kept;
    if (kept) verified.delete(token);
    let claims: ServiceJwtClaims;
    try {
      claims = verify(token);
    } catch (error) {
      const reason = req.get('authorization') === undefined ? 'missing_credential' : 'invalid_credential';
      throw new AppError('unauthenticated', { message: INVALID_SERVICE_TOKEN, reason, cause: error });
    }
    if (verified.size >= MAX_KEPT) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
    return claims;
  };
}
