import { AppError } from '@platform/wire';
import { isWellFormedToken, type AccessStore } from '@platform/credentials';

/**
 * RFC 7009: revokes the token when it is a live token of `accountId`; anything else (unknown,
 * expired, another account's) is left alone and the caller still gets its 200.
 * Returns whether a token was revoked (for the logs).
 */
export async function revokeOwnToken(access: AccessStore, token: string, accountId: number): Promise<boolean> {
  if (!isWellFormedToken(token)) return false;
  const record = await access.lookupToken(token);
  if (!record || record.accountId !== accountId) return false;
  await access.revokeToken(token);
  return true;
}

/**
 * The account of a live access token presented as `Authorization: Bearer <token>` on revocation
 * (CONTRACT §3: a token is accepted where the key is, except to mint tokens or rotate the key).
 * A browser session keeps only its token, so this is how it signs out. Unknown, expired or
 * revoked tokens authenticate nobody (401).
 */
export async function authenticateTokenHolder(access: AccessStore, token: string): Promise<number> {
  const record = await access.lookupToken(token);
  if (!record) throw new AppError('unauthenticated');
  return record.accountId;
}
