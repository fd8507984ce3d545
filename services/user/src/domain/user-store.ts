import type { BalanceChanged } from '@platform/events';
import type { Product } from './catalogue';
import type { AuditWrite } from './operator-store';

/** An account as the admin API shows it. */
export interface AccountRecord {
  id: number;
  email: string;
  createdAt: Date;
  /** A disabled account's key and tokens are refused everywhere (CONTRACT §7). */
  disabled: boolean;
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
  /** Why the service disabled it (CONTRACT §6.1): a 410 Gone, or 5 days of failures; absent otherwise. */
  disabledReason?: 'gone' | 'failing';
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
  readNotificationSettings(accountId: number): Promise<NotificationSettings>;
  /** The audit row of an admin write or a key rotation (in its transaction); names the actor of later ledger rows. */
  audit(entry: AuditWrite): Promise<void>;
  updateNotificationSettings(accountId: number, patch: StoredSettingsPatch): Promise<NotificationSettings>;
}

/**
 * What a transaction's changes mean for the access records (CONTRACT §3), called after its SQL.
 * A change that closes access is written before the commit (a failed write fails the
 * transaction: 503, nothing changed); one that opens access only after the commit, and a crash
 * in between is repaired (store/access-records.ts).
 */
export interface AccessRecordWrites {
  /** A new account's key (the caller created the account row in this transaction): opens, after the commit. */
  recordNewKey(accountId: number, keyHash: string): Promise<void>;
  /**
   * A rotation (the caller holds the key and account rows FOR UPDATE and has replaced the key):
   * the old key's record goes before the commit, so a failure revokes too much, never too little;
   * the new key's record after it.
   */
  recordReplacedKey(accountId: number, oldKeyHash: string, newKeyHash: string): Promise<void>;
}

/** The credit change of a transaction: the one credit write path, with its side effects. */
export interface CreditWrite {
  /**
   * Changes one pool's credits through the one credit write path (a batch of one): the pool, the
   * ledger row and the outbox `balance.changed` event (CONTRACT §5, §6), with the side effects
   * declared beside it (the access records' credit bit when the pool reaches or leaves 0, the
   * relay's wake-up after the commit). A change that changes nothing writes nothing.
   */
  changeBalance(change: BalanceChange): Promise<BalanceChangeResult>;
}

/** A transaction's queries, with what its changes mean for the access records (CONTRACT §3). */
type UserTransaction = UserQueries & AccessRecordWrites & CreditWrite;

export interface UserStore extends UserQueries {
  /**
   * Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws (the access
   * records it closed are then repaired from what Postgres holds). Resolves after the access
   * it opened is written (or left to the grant sweeper when Redis refused).
   */
  transaction<T>(fn: (tx: UserTransaction) => Promise<T>): Promise<T>;
}
