import type { Request } from 'express';
import { AppError } from '@platform/wire';
import { verifyServiceJwt, type CredentialVerifier, type SeenJtis, type ServiceJwtClaims } from '@platform/credentials';
import type { CatalogueReads } from '../domain/catalogue';

/** `messages` of the 401 for a missing or bad service JWT; a bad customer credential keeps the contract's 401 sentence. */
export const INVALID_SERVICE_TOKEN = 'Invalid service token.';

// A verify costs about 8 µs (service-jwt.ts keeps the secret as a KeyObject; with the string it
// cost 450 µs). A product app may send the same JWT (without a `jti`) for a while, so such JWTs that
// verified are kept until they expire: a service JWT cannot be revoked, and its claims never change.
// A JWT with a `jti` is accepted once within its lifetime (issue 45): `seen` remembers its id.
const MAX_KEPT = 1000;
// As verifyServiceJwt: an `exp` this many seconds past is still accepted (clock skew).
const CLOCK_SKEW_SECONDS = 5;

/** The 401 of a service JWT presented again within its lifetime (its `jti` seen already). */
function replayed(): AppError {
  return new AppError('unauthenticated', { message: INVALID_SERVICE_TOKEN, reason: 'invalid_credential' });
}

/** Records the JWT's `jti` for its remaining lifetime; throws the 401 for a replay, 503 when the store fails. */
async function claimOnce(seen: SeenJtis, claims: ServiceJwtClaims, nowMs: number): Promise<void> {
  if (claims.jti === undefined) return;
  let first: boolean;
  try {
    first = await seen.claim(claims.jti, (claims.exp + CLOCK_SKEW_SECONDS) * 1000 - nowMs);
  } catch (error) {
    throw new AppError('unavailable', { cause: error });
  }
  if (!first) throw replayed();
}

/** A product's call to the internal usage API: who called (the service JWT's claims), or the 401. */
export type ServiceJwtCheck = (req: Request) => Promise<ServiceJwtClaims>;

/** What the internal usage API's routes use: the product's service JWT, the customer's credential, the catalogue. */
export interface ProductCallUses {
  requireServiceJwt: ServiceJwtCheck;
  /** Keys and tokens, never a page session (CONTRACT §4.7). */
  credentials: CredentialVerifier;
  catalogue: CatalogueReads;
}

/**
 * Checks `Authorization: Bearer <service JWT>` (CONTRACT §7), remembering the JWTs without a
 * `jti` that verified until they expire, and refusing a JWT whose `jti` was seen (a replay). `previous` (SERVICE_JWT_SECRET_PREVIOUS) is accepted beside `secret` while a
 * rotation rolls out: product apps move to the new secret one by one, none is refused meanwhile.
 */
export function createServiceJwtCheck(secret: string, seen: SeenJtis, now: () => number = Date.now, previous?: string): ServiceJwtCheck {
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
  return async (req) => {
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
    if (claims.jti !== undefined) {
      await claimOnce(seen, claims, now());
      return claims;
    }
    if (verified.size >= MAX_KEPT) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
    return claims;
  };
}
