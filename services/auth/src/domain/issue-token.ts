import { AppError } from '@platform/wire';
import { generateAccessToken, refusedKey, type AccessStore, type ExplainKeyRefusal } from '@platform/credentials';
import { authenticateAccount, presentedKey, type AccountCredential } from './account-auth';
import { tooMany } from './attempt-limits';

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  accountId: number;
}

export interface TokenIssuer {
  /**
   * Issues a token for the API key (both token flows): 401 for an unknown or inactive key, a key
   * of another account than the client_id, or an account whose pools are all at 0; 429 over the
   * account's issuances a minute. One round trip to the access store, nothing else.
   */
  issue(credential: AccountCredential, ttlSeconds: number): Promise<IssuedToken>;
  /** The same credential check without issuing: for a request refused for its parameters (401 before 422). */
  authenticate(credential: AccountCredential): Promise<void>;
}

export interface TokenIssuerDeps {
  access: AccessStore;
  /** Issuances allowed per account and window (TOKEN_RATE_PER_ACCOUNT a minute). */
  limit: { points: number; windowSeconds: number };
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Why an unknown key was refused (a replaced key, a disabled account), looked up only for a final refusal. */
  explainKey?: ExplainKeyRefusal | undefined;
}

/**
 * Token issuance (CONTRACT §3, §4.1). The user service keeps, beside the tokens, each active
 * key's account, generation and credit state, written before it answers any change of them;
 * so the key check, the credit check, the issuance count and the token write are one script,
 * and no cache stands between a rotation, an emptied pool or a top-up and the next issuance.
 */
export function createTokenIssuer(deps: TokenIssuerDeps): TokenIssuer {
  return {
    async issue(credential, ttlSeconds) {
      const { keyHash, accountId } = presentedKey(credential);
      const accessToken = generateAccessToken(keyHash);
      const result = await deps.access.issue({
        keyHash,
        token: accessToken,
        ...(accountId === undefined ? {} : { accountId }),
        issuedAt: Math.floor(deps.now() / 1000),
        ttlSeconds,
        limit: deps.limit,
      });
      switch (result.outcome) {
        case 'issued':
          return { accessToken, expiresIn: ttlSeconds, accountId: result.accountId };
        case 'limited':
          throw tooMany(result.msBeforeNext);
        case 'unknown_key':
          // The store refuses another account's key (client_id) alike: its own state is what is told.
          throw refusedKey(keyHash, deps.explainKey);
        case 'no_credits':
          throw new AppError('unauthenticated', { reason: 'no_credits' });
      }
    },
    async authenticate(credential) {
      await authenticateAccount((keyHash) => deps.access.findKey(keyHash), credential, {
        requireCredits: true,
        explainKey: deps.explainKey,
      });
    },
  };
}
