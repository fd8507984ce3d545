import { AppError } from '@platform/wire';
import { generateApiKey, hashSecret, isApiKeyShape } from '@platform/credentials';
import { replaceKey } from './account-change';
import type { AccountTransactions } from './account-transaction';

/**
 * Replaces the account's API key (CONTRACT §3, §4.4). Inside one transaction: lock the active
 * key and its account (concurrent calls with one key queue here; all but the first then find it
 * inactive), swap the key and raise the key generation, then, before the commit, replace the
 * access records (the old key's record removed, so no token minted from it passes any check).
 * When the access store fails nothing changes (503); when the commit fails, the records are
 * repaired from Postgres (the store's transaction): too much is revoked, never too little.
 */
export async function rotateApiKey(
  deps: { store: { accounts: AccountTransactions } },
  currentApiKey: string | undefined,
): Promise<{ apiKey: string; accountId: number }> {
  // Only the real key may rotate: a token is not shaped like one (CONTRACT §3).
  if (currentApiKey === undefined || !isApiKeyShape(currentApiKey)) throw new AppError('invalid_request_params');
  const apiKey = generateApiKey();
  const oldKeyHash = hashSecret(currentApiKey);
  const newKeyHash = hashSecret(apiKey);
  const accountId = await deps.store.accounts.transaction('account', async (tx) => {
    const old = await tx.lockActiveKey(oldKeyHash);
    if (!old) throw new AppError('key_not_active');
    await tx.apply(replaceKey(old, newKeyHash, true), {
      actor: 'account',
      action: 'api-key.rotate',
      accountId: old.accountId,
      details: {},
    });
    return old.accountId;
  });
  return { apiKey, accountId };
}
