import type { AdminAuditRow } from '@platform/accounts';
import type { AccountChange, AccountKey } from './account-change';
import type { NotificationSettings } from './settings';
import type { PoolKey, PoolsAndAnswers } from './usage-reads';

/** An account as the admin API shows it. */
export interface AccountRecord {
  id: number;
  email: string;
  createdAt: Date;
  /** A disabled account's key and tokens are refused everywhere (CONTRACT §7). */
  disabled: boolean;
}

/** One audit row, written in the transaction of the change it describes; it names the actor of the ledger rows after it. */
export type AuditWrite = AdminAuditRow;

/** An account row locked for a change, with its latest key (the one an enabling reactivates). */
export interface LockedAccount {
  id: number;
  email: string;
  disabled: boolean;
  key: AccountKey;
}

/**
 * Which use case a transaction serves. The store keeps it for its test pause points (TEST_PAUSE_AT
 * `user-before-commit` counts the `account` ones, `usage-after-commit` the `usage` ones) and its
 * logs; the rules are the same for all. A `usage` transaction (a batch of debits, which locks many
 * pools at once) is run again when Postgres ends it as a deadlock.
 */
export type TransactionKind = 'account' | 'operator' | 'reservation' | 'settings' | 'usage';

/**
 * Another transaction took one of the requestIds of the credit entries being applied after they
 * were read (another replica's copy of the same request): nothing was written, and the
 * transaction rolls back; deciding again on a fresh read sees that answer.
 */
export class RequestIdTaken extends Error {
  constructor() {
    super('a requestId was taken by another transaction meanwhile');
  }
}

/**
 * One account transaction: reads under lock, then the changes. Every write of an account goes
 * through `apply`, which writes, in this order: the audit row (it names the ledger's actor), the
 * account, key and settings rows of each change, the credit changes as ONE statement (pools, ledger rows,
 * the `balance.changed` events as one outbox message: CONTRACT §5, §6; at most one `apply` with
 * credit changes per transaction), and each change's access effect (accessEffectOf: a closing
 * one before the COMMIT, an opening one after it, CONTRACT §3).
 */
export interface AccountTransaction {
  /** Locks the account row (FOR UPDATE) with its latest key; undefined when there is no such account. */
  lockAccount(accountId: number): Promise<LockedAccount | undefined>;
  /** Locks the active key with this hash and its account row; concurrent rotations with one key queue here. */
  lockActiveKey(keyHash: string): Promise<AccountKey | undefined>;
  /** Inserts an account; undefined when the e-mail is taken (compared case-insensitively). */
  insertAccount(email: string): Promise<AccountRecord | undefined>;
  /** Whether another account has this e-mail (compared case-insensitively). */
  emailTaken(accountId: number, email: string): Promise<boolean>;
  /** Makes the account hold a pool (at 0 credits) unless it already does. */
  holdPool(accountId: number, poolId: number): Promise<void>;
  /** Locks the pool's row (FOR UPDATE) and reads its credits; undefined when the account does not hold it. */
  lockPool(accountId: number, poolId: number): Promise<number | undefined>;
  /**
   * Locks many pools' rows (in key order, so that two batches never deadlock on them) and reads
   * their credits and the kept answers of these requestIds, in one round trip (a usage batch).
   * The answers are read as of the statement's start: one committed meanwhile shows as
   * RequestIdTaken from `apply`.
   */
  lockPoolsAndAnswers(keys: readonly PoolKey[], requestIds: readonly string[]): Promise<PoolsAndAnswers>;
  /** The account's notification settings as this transaction sees them (after a settings change: as written). */
  readSettings(accountId: number): Promise<NotificationSettings>;
  /** Throws RequestIdTaken when a credit entry's requestId was taken meanwhile (nothing of the call stays). */
  apply(changes: readonly AccountChange[], audit?: AuditWrite): Promise<void>;
}

/** The port: COMMIT when fn resolves, ROLLBACK when it throws (then the access closed in it is repaired from Postgres). */
export interface AccountTransactions {
  transaction<T>(kind: TransactionKind, fn: (tx: AccountTransaction) => Promise<T>): Promise<T>;
  /**
   * The same writes as `apply`, for changes decided without locks (a usage batch on a read or on
   * kept credits) that neither close nor open access (accessEffectOf: 'none', so nothing must
   * happen inside a transaction): one statement that is its own transaction, and that writes
   * only if every pool still holds its `previousCredits` and every requestId is free. True once
   * committed; false when something changed meanwhile, and then nothing was written.
   */
  applyAlone(changes: readonly AccountChange[]): Promise<boolean>;
}
