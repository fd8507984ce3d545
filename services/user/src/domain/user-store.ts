import type { BalanceChanged } from '@platform/events';
import type { Product } from './catalogue';

/** An account as the admin API shows it. */
export interface AccountRecord {
  id: number;
  email: string;
  createdAt: Date;
}

/** An active key locked for rotation, with its account's current key generation. */
export interface LockedKey {
  keyId: number;
  accountId: number;
  generation: number;
}

/** One held product with its pool's credits. */
export interface ProductBalance {
  productId: number;
  productName: string;
  credits: number;
}

/** One pool the account holds and its credits. */
export interface PoolCredits {
  poolId: number;
  credits: number;
}

/** An admin change of one pool's credits (usage debits go through usage batches). */
export interface BalanceChange {
  accountId: number;
  /** The pool's id (its lowest product id). */
  poolId: number;
  /** Credits added (positive) or removed (negative); a result below 0 is clamped at 0. */
  delta: number;
  cause: 'top-up' | 'adjustment';
}

export type BalanceChangeResult =
  | { ok: true; previousCredits: number; credits: number; event: BalanceChanged | undefined }
  | { ok: false; reason: 'not_held' | 'too_large' };

/** The balance webhook as stored (CONTRACT §6.1); the secret never leaves the service but once. */
export interface WebhookSetting {
  url: string;
  enabled: boolean;
}

export interface NotificationSettings {
  lowBalanceAlert: { enabled: boolean; threshold: number };
  zeroBalanceAlert: { enabled: boolean };
  /** Where alert e-mails go: the settings' address, else the account's. */
  email: string;
  webhook: WebhookSetting | null;
}

/** Fields to change; absent fields keep their stored (or default) value. */
export interface NotificationSettingsPatch {
  lowBalanceEnabled?: boolean;
  lowBalanceThreshold?: number;
  zeroBalanceEnabled?: boolean;
  /** null: back to the account's e-mail. */
  email?: string | null;
  /** null: removes the webhook; `url` and `enabled` change what they name. */
  webhook?: { url?: string; enabled?: boolean } | null;
}

/** The store's form of a patch: a webhook change is whole (its secret chosen by the domain). */
export type StoredSettingsPatch = Omit<NotificationSettingsPatch, 'webhook'> & {
  webhook?: (WebhookSetting & { secret: string | undefined }) | null;
};

/** The user service's queries, on the pool or on one transaction's connection. */
export interface UserQueries {
  findAccount(accountId: number): Promise<AccountRecord | undefined>;
  /** Inserts an account; undefined when the e-mail is taken (compared case-insensitively). */
  insertAccount(email: string): Promise<AccountRecord | undefined>;
  insertApiKey(accountId: number, keyHash: string): Promise<void>;
  /**
   * Locks the active key with this hash and its account row (inside a transaction). Concurrent
   * rotations with one key queue here; once the first commits, the others find no active key.
   */
  lockActiveKey(keyHash: string): Promise<LockedKey | undefined>;
  /** Deactivates the locked key, stores the new key's hash and raises the key generation (never lowers it). */
  replaceApiKey(locked: LockedKey, newKeyHash: string, generation: number): Promise<void>;
  /** The catalogue entries among `ids`, ordered by id (unknown ids are simply missing). */
  findProducts(ids: number[]): Promise<Product[]>;
  /** Every product the account holds (a held pool holds all its products), ordered by product id. */
  readBalances(accountId: number): Promise<ProductBalance[]>;
  /** Makes the account hold a pool (at 0 credits) unless it already does. */
  holdPool(accountId: number, poolId: number): Promise<void>;
  /**
   * Changes one pool's credits and, in the same transaction, appends the ledger row and the
   * outbox `balance.changed` event (CONTRACT §5, §6). A change that changes nothing writes neither.
   */
  changeBalance(change: BalanceChange): Promise<BalanceChangeResult>;
  readNotificationSettings(accountId: number): Promise<NotificationSettings>;
  updateNotificationSettings(accountId: number, patch: StoredSettingsPatch): Promise<NotificationSettings>;
}

/**
 * The access-store writes a transaction makes after its SQL and before its commit, holding the
 * account-row lock (CONTRACT §3). A failed write fails the transaction (503, nothing changed).
 */
export interface AccessRecordWrites {
  /** A new account's key: its record (the caller created the account row in this transaction). */
  recordNewKey(accountId: number, keyHash: string): Promise<void>;
  /**
   * A rotation (the caller holds the key and account rows FOR UPDATE and has replaced the key):
   * the old key's record goes first, so a failure in between revokes too much, never too little.
   */
  recordReplacedKey(accountId: number, oldKeyHash: string, newKeyHash: string): Promise<void>;
  /** A pool reached 0 or left it (called after the pool's row was changed in this transaction). */
  recordPoolCredit(accountId: number, poolId: number, credited: boolean): Promise<void>;
}

/** A transaction's queries, with the access-store writes that must precede its commit (CONTRACT §3). */
type UserTransaction = UserQueries & AccessRecordWrites;

export interface UserStore extends UserQueries {
  /**
   * Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws; the access
   * records it wrote are then repaired from what Postgres holds.
   */
  transaction<T>(fn: (tx: UserTransaction) => Promise<T>): Promise<T>;
}
