import type { StoredSettingsPatch } from './settings';

/**
 * What can happen to an account, as one vocabulary (CONTRACT §3, §5, §7): every write of the user
 * service is a list of these changes applied in one account transaction (account-transaction.ts).
 * The rules here are pure: what a change means for access, and how credits move for each cause.
 */

/** Why a pool's credits change (the ledger's `cause`): `hold` and `release` are a reservation's units taken and returned. */
export type CreditCause = 'usage' | 'top-up' | 'adjustment' | 'hold' | 'release';

/** A locked account's current key (its latest: rotations add keys; disabling keeps it, inactive). */
export interface AccountKey {
  accountId: number;
  keyId: number;
  keyHash: string;
  /** Whether the key is active now (an access record exists for it). */
  active: boolean;
}

/** One ledger row of a credit change; a usage debit also keeps its answer under its requestId. */
export interface CreditEntry {
  delta: number;
  /** Credits left in the pool after this entry. */
  credits: number;
  cause: CreditCause;
  /** The usage debit's or reservation's product; null for admin changes. */
  productId: number | null;
  requestId: string | null;
  digest: string | null;
}

export type AccountChange =
  /**
   * One pool's credits, from `previousCredits` (read under its lock, or kept) to `credits`, with
   * the ledger rows that explain it. Its `balance.changed` event is written with it (CONTRACT §6).
   */
  | { kind: 'credits'; accountId: number; poolId: number; previousCredits: number; credits: number; entries: readonly CreditEntry[] }
  /** A new key replaces `old`: the old key's record goes (and its issuance window carries on to the new key). */
  | { kind: 'key-replaced'; old: AccountKey; newKeyHash: string }
  /** A new key: a new account's first, or the one that replaces another (inactive for a disabled account). */
  | { kind: 'key-added'; accountId: number; keyHash: string; active: boolean }
  /** Disabling: the key deactivated, the key generation raised (earlier tokens stay revoked). */
  | { kind: 'disabled'; key: AccountKey }
  /** Enabling: the latest key reactivated. */
  | { kind: 'enabled'; key: AccountKey }
  /** A new e-mail (its uniqueness checked by the caller under the account's lock). */
  | { kind: 'email'; accountId: number; email: string }
  /** Notification and webhook settings (CONTRACT §6, §6.1): what `patch` names changes, the rest stays. */
  | { kind: 'settings'; accountId: number; patch: StoredSettingsPatch };

/**
 * What a change does to access (CONTRACT §3, "Redis follows Postgres"): a change that CLOSES is
 * written to the access store before the COMMIT (a failure fails the transaction: 503, nothing
 * changed); one that OPENS only after it (never more permissive than what Postgres committed).
 */
export type AccessEffect = 'close' | 'open' | 'none';

export function accessEffectOf(change: AccountChange): AccessEffect {
  switch (change.kind) {
    case 'credits':
      if (change.previousCredits > 0 && change.credits === 0) return 'close';
      if (change.previousCredits === 0 && change.credits > 0) return 'open';
      return 'none';
    case 'key-replaced':
    case 'disabled':
      return 'close';
    case 'key-added':
      return change.active ? 'open' : 'none';
    case 'enabled':
      return 'open';
    case 'email':
    case 'settings':
      return 'none';
  }
}

/** The account a change is of. */
export const accountOfChange = (change: AccountChange): number =>
  change.kind === 'key-replaced'
    ? change.old.accountId
    : change.kind === 'disabled' || change.kind === 'enabled'
      ? change.key.accountId
      : change.accountId;

/** Credits stay exact JavaScript numbers. */
export const MAX_CREDITS = Number.MAX_SAFE_INTEGER;

/** A credit change asked for, before it is decided on the pool's credits. */
export type CreditRequest =
  /** A top-up (amount ≥ 0) or an adjustment (amount < 0): the result is clamped at 0. */
  | { cause: 'top-up' | 'adjustment'; amount: number }
  /** A debit or a reservation's hold: all `units` or nothing. */
  | { cause: 'usage' | 'hold'; units: number }
  /** A reservation's end: its `units` back, then `charged` of them taken as usage. */
  | { cause: 'release'; units: number; charged: number };

export type CreditDecision =
  { ok: true; previousCredits: number; credits: number } | { ok: false; reason: 'not_held' | 'exhausted' | 'too_large' };

/**
 * THE credit decision, for every cause (CONTRACT §5, §7, §7.1). `previous` is the pool's credits
 * (undefined: the account does not hold the pool).
 */
export function decideCredits(previous: number | undefined, request: CreditRequest): CreditDecision {
  switch (request.cause) {
    case 'top-up':
    case 'adjustment': {
      if (previous === undefined) return { ok: false, reason: 'not_held' };
      const credits = Math.max(previous + request.amount, 0);
      if (credits > MAX_CREDITS) return { ok: false, reason: 'too_large' };
      return { ok: true, previousCredits: previous, credits };
    }
    case 'usage':
    case 'hold':
      if (previous === undefined || previous < request.units) return { ok: false, reason: 'exhausted' };
      return { ok: true, previousCredits: previous, credits: previous - request.units };
    case 'release':
      return { ok: true, previousCredits: previous ?? 0, credits: (previous ?? 0) + request.units - request.charged };
  }
}

/** The cause of an admin change of `amount` credits. */
export const adminCause = (amount: number): 'top-up' | 'adjustment' => (amount < 0 ? 'adjustment' : 'top-up');

/** A pool's credit change as an account change, with its one ledger row (none when nothing changes). */
export function creditsChange(
  accountId: number,
  poolId: number,
  decided: { previousCredits: number; credits: number },
  entry: Pick<CreditEntry, 'cause'> & Partial<CreditEntry>,
): AccountChange[] {
  const { previousCredits, credits } = decided;
  if (previousCredits === credits) return [];
  const row: CreditEntry = { productId: null, requestId: null, digest: null, delta: credits - previousCredits, credits, ...entry };
  return [{ kind: 'credits', accountId, poolId, previousCredits, credits, entries: [row] }];
}

/**
 * A key replacement, the customer's rotation and the operator's alike (CONTRACT §3, §4.4): the old
 * key deactivated and the key generation raised (its record closed before the commit), the new
 * key added (inactive for a disabled account: an enabling brings that one back).
 */
export const replaceKey = (old: AccountKey, newKeyHash: string, newKeyActive: boolean): AccountChange[] => [
  { kind: 'key-replaced', old, newKeyHash },
  { kind: 'key-added', accountId: old.accountId, keyHash: newKeyHash, active: newKeyActive },
];
