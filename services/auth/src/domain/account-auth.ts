import { AppError } from '@platform/wire';
import { hashSecret, isApiKeyShape, refusedKey, type ActiveKey, type ExplainKeyRefusal } from '@platform/credentials';

/** What a caller presented to prove it is an account. */
export interface AccountCredential {
  /** The API key (client_secret, or the key inside the seed's Bearer); undefined when unreadable. */
  apiKey: string | undefined;
  /** RFC 6749 client_id, which must be the key's account id; undefined when the flow has none. */
  clientId: string | undefined;
}

/** A credential whose shapes could be a key and an account id; nothing looked up yet. */
export interface PresentedKey {
  /** SHA-256 of the API key (how it is looked up; never the key). */
  keyHash: string;
  /** The account the key must belong to (RFC 6749 client_id). */
  accountId: number | undefined;
}

export interface AuthenticatedKey {
  keyHash: string;
  key: ActiveKey;
}

export type FindActiveKey = (keyHash: string) => Promise<ActiveKey | undefined>;

const ACCOUNT_ID = /^[1-9][0-9]{0,15}$/;

/** Shapes that cannot be a key or an account id are refused (401) without a lookup. */
export function presentedKey(credential: AccountCredential): PresentedKey {
  const { apiKey, clientId } = credential;
  if (apiKey === undefined || !isApiKeyShape(apiKey)) throw new AppError('unauthenticated');
  if (clientId !== undefined && !ACCOUNT_ID.test(clientId)) throw new AppError('unauthenticated');
  return { keyHash: hashSecret(apiKey), accountId: clientId === undefined ? undefined : Number(clientId) };
}

/**
 * Checks an account credential against the active keys. `requireCredits`: an account whose pools
 * are all at 0 is refused too (token issuance, CONTRACT §4.1). `explainKey` tells, once a refusal
 * of a key the store does not know is final, a replaced key or a disabled account's.
 */
export async function authenticateAccount(
  find: FindActiveKey,
  credential: AccountCredential,
  options: { requireCredits: boolean; explainKey?: ExplainKeyRefusal | undefined },
): Promise<AuthenticatedKey> {
  const { keyHash, accountId } = presentedKey(credential);
  const key = await find(keyHash);
  if (!key) throw refusedKey(keyHash, options.explainKey);
  // Another account's key is refused before its credits are told: the client_id does not own it.
  if (accountId !== undefined && key.accountId !== accountId) throw new AppError('unauthenticated');
  if (options.requireCredits && !key.hasCredits) throw new AppError('unauthenticated', { reason: 'no_credits' });
  return { keyHash, key };
}
