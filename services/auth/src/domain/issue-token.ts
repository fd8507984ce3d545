import { AppError } from '@platform/common';
import { generateAccessToken, hashSecret, type ActiveKey, type MintRequest, type TokenStore } from '@platform/credentials';
import { authenticateAccount, type AccountCredential, type AuthenticatedKey } from './account-auth';
import { tooMany, type AttemptLimits } from './attempt-limits';

/** Returned by `IssuanceKeys.whileLocked` when a key rotation holds the key's rows. */
export const KEY_BUSY = Symbol('key busy');

/** How issuance reads API keys (the user service's tables, read-only). */
export interface IssuanceKeys {
  /** The active key for a hash; may be served from a short cache (see README). */
  find(keyHash: string): Promise<ActiveKey | undefined>;
  /** Forgets a cached lookup (the token store refused the generation it carried). */
  evict(keyHash: string): void;
  /**
   * Reads the key again under a share lock on its api_keys and accounts rows and runs `fn`
   * while the lock is held; KEY_BUSY when a rotation holds those rows (lock not available).
   */
  whileLocked<T>(keyHash: string, fn: (key: ActiveKey | undefined) => Promise<T>): Promise<T | typeof KEY_BUSY>;
}

/** The client address's failure check as issuance sees it (`AddressCheck` in routes/attempts.ts). */
export interface AddressGuard {
  readonly address: string;
  /** Resolves when the address may proceed; rejects with the 429 (or a 503). */
  readonly allowed: Promise<void>;
  /** Takes the outcome of the address check when the issuance gate made it. */
  settle(outcome: Promise<void>): void;
}

export type IssuanceGateOutcome =
  | { outcome: 'minted'; generation: number }
  /** The account's generation has moved past the one read with the key (a rotation). */
  | { outcome: 'refused' }
  | { outcome: 'address_limited'; msBeforeNext: number }
  | { outcome: 'account_limited'; msBeforeNext: number };

/**
 * The Redis steps of an issuance in one round trip, where the limit counters and the token store
 * share one Redis: the address's failure check, the account's issuance count (counted whether or
 * not the address passes) and, only when neither refuses, the mint. Throws the 503 when Redis fails.
 */
export interface IssuanceGate {
  countAndMint(address: string, request: MintRequest): Promise<IssuanceGateOutcome>;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  accountId: number;
}

export interface TokenIssuer {
  /** The credential check of both token flows: active key, matching client_id, some credits (401 otherwise). */
  authenticate(credential: AccountCredential): Promise<AuthenticatedKey>;
  /**
   * Counts the issuance (429 over the account's limit) and mints a token (401 if the key was
   * rotated meanwhile). The client address's failure check (429) runs beside them: given as an
   * AddressGuard, the issuance gate (when there is one) makes it in the same round trip and
   * settles the guard with it. A refused request never gets a token: the gate mints only when
   * neither limit refuses; the separate calls delete a token minted beside a refusal.
   */
  issue(authenticated: AuthenticatedKey, ttlSeconds: number, address?: Promise<void> | AddressGuard): Promise<IssuedToken>;
  /** True when issue() checks an AddressGuard's address itself: the caller need not start the check. */
  readonly checksAddress: boolean;
}

export interface TokenIssuerDeps {
  keys: IssuanceKeys;
  tokens: TokenStore;
  limits: AttemptLimits;
  /** The one-round-trip path, on Redis; without it the checks and the mint are separate calls. */
  gate?: IssuanceGate;
  /** Milliseconds since the epoch. */
  now: () => number;
}

function isAddressGuard(value: Promise<void> | AddressGuard): value is AddressGuard {
  return typeof (value as Partial<AddressGuard>).settle === 'function';
}

/**
 * Token issuance with the revocation invariant of CONTRACT §3. The fast path is one key read
 * (or a cache hit) and one mint; the mint is refused when the account's generation in Redis has
 * moved past the one read with the key. Then the key is read again under a share lock:
 * - the lock is held by a rotation in progress, or the key is no longer active: 401;
 * - the key is still active and unlocked: Redis is ahead of Postgres because a rotation bumped
 *   the generation but did not commit (it answered 503, the key was not replaced), so mint
 *   under Redis's current generation, still holding the lock so no rotation can start meanwhile.
 */
export function createTokenIssuer(deps: TokenIssuerDeps): TokenIssuer {
  const mintAfterRefusal = async (authenticated: AuthenticatedKey, request: Omit<MintRequest, 'expectedGeneration'>): Promise<boolean> => {
    deps.keys.evict(authenticated.keyHash);
    const outcome = await deps.keys.whileLocked(authenticated.keyHash, async (fresh) => {
      if (!fresh || !fresh.hasCredits || fresh.accountId !== authenticated.key.accountId) return undefined;
      const current = await deps.tokens.currentGeneration(fresh.accountId);
      return deps.tokens.mint({ ...request, expectedGeneration: Math.max(fresh.generation, current ?? fresh.generation) });
    });
    return outcome !== KEY_BUSY && outcome !== undefined;
  };

  const find = (keyHash: string): Promise<ActiveKey | undefined> => deps.keys.find(keyHash);
  const gate = deps.gate;

  return {
    checksAddress: gate !== undefined,
    authenticate(credential) {
      return authenticateAccount(find, credential, { requireCredits: true });
    },
    async issue(authenticated, ttlSeconds, addressCheck = Promise.resolve()) {
      const { accountId, generation } = authenticated.key;
      const accessToken = generateAccessToken();
      const request = { tokenHash: hashSecret(accessToken), accountId, issuedAt: Math.floor(deps.now() / 1000), ttlSeconds };
      if (gate && isAddressGuard(addressCheck)) {
        const result = await gate.countAndMint(addressCheck.address, { ...request, expectedGeneration: generation });
        if (result.outcome === 'address_limited') {
          const refused = tooMany(result.msBeforeNext);
          addressCheck.settle(Promise.reject(refused));
          throw refused;
        }
        addressCheck.settle(Promise.resolve());
        if (result.outcome === 'account_limited') throw tooMany(result.msBeforeNext);
        if (result.outcome === 'refused' && !(await mintAfterRefusal(authenticated, request))) throw new AppError('unauthenticated');
        return { accessToken, expiresIn: ttlSeconds, accountId };
      }
      const addressAllowed = isAddressGuard(addressCheck) ? addressCheck.allowed : addressCheck;
      // One round trip for all three: the checks and the mint are independent Redis calls.
      const [address, counted, minted] = await Promise.allSettled([
        addressAllowed,
        deps.limits.countIssuance(accountId),
        deps.tokens.mint({ ...request, expectedGeneration: generation }),
      ]);
      const refusal = address.status === 'rejected' ? address : counted.status === 'rejected' ? counted : undefined;
      if (refusal) {
        if (minted.status === 'fulfilled' && minted.value !== undefined) await deps.tokens.revoke(request.tokenHash).catch(() => undefined);
        throw refusal.reason;
      }
      if (minted.status === 'rejected') throw minted.reason;
      if (minted.value === undefined && !(await mintAfterRefusal(authenticated, request))) throw new AppError('unauthenticated');
      return { accessToken, expiresIn: ttlSeconds, accountId };
    },
  };
}
