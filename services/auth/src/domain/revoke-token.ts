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
