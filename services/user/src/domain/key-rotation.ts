import { AppError } from '@platform/common';
import { generateApiKey, hashSecret, isApiKeyShape, type TokenStore } from '@platform/credentials';
import { RETRY_AFTER_SECONDS } from '../dependency-failure';
import type { UserStore } from '../store/user-store';

/**
 * Replaces the account's API key (CONTRACT §3, §4.4). Inside one transaction: lock the active
 * key (concurrent calls with one key queue here; all but the first then find it inactive),
 * revoke every earlier token by bumping the generation in the token store, then swap the key.
 * When the token store fails nothing changes (503); when Postgres fails after the bump the
 * tokens are revoked but the key is unchanged (503): too much is revoked, never too little.
 */
export async function rotateApiKey(
  deps: { store: UserStore; tokens: TokenStore },
  currentApiKey: string | undefined,
): Promise<{ apiKey: string; accountId: number }> {
  // Only the real key may rotate: a token is not shaped like one (CONTRACT §3).
  if (currentApiKey === undefined || !isApiKeyShape(currentApiKey)) throw new AppError('invalid_request_params');
  const apiKey = generateApiKey();
  let revoked: { accountId: number; generation: number } | undefined;
  try {
    const accountId = await deps.store.transaction(async (tx) => {
      const locked = await tx.lockActiveKey(hashSecret(currentApiKey));
      if (!locked) throw new AppError('key_not_active');
      const generation = await deps.tokens.bumpGeneration(locked.accountId, locked.generation + 1).catch((error: unknown) => {
        throw new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error });
      });
      revoked = { accountId: locked.accountId, generation };
      await tx.replaceApiKey(locked, hashSecret(apiKey), generation);
      return locked.accountId;
    });
    return { apiKey, accountId };
  } catch (error) {
    if (revoked) await realignGeneration(deps.store, revoked);
    if (error instanceof AppError) throw error;
    throw new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error });
  }
}

/**
 * After a failed commit the token store is ahead of Postgres, and token minting (which checks
 * the generation read from Postgres) would refuse the still-active key. Best effort: record
 * the new generation; if Postgres is still down the next rotation realigns it.
 */
async function realignGeneration(store: UserStore, revoked: { accountId: number; generation: number }): Promise<void> {
  await store.raiseKeyGeneration(revoked.accountId, revoked.generation).catch(() => undefined);
}
