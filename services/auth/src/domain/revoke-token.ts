import { hashSecret, isWellFormedToken, type TokenStore } from '@platform/credentials';

/**
 * RFC 7009: revokes the token when it is a live token of `accountId`; anything else (unknown,
 * expired, another account's) is left alone and the caller still gets its 200.
 * Returns whether a token was revoked (for the logs).
 */
export async function revokeOwnToken(tokens: TokenStore, token: string, accountId: number): Promise<boolean> {
  if (!isWellFormedToken(token)) return false;
  const tokenHash = hashSecret(token);
  const record = await tokens.lookup(tokenHash);
  if (!record || record.accountId !== accountId) return false;
  await tokens.revoke(tokenHash);
  return true;
}
