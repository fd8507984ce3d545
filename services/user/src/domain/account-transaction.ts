import type { AdminAuditRow } from '@platform/accounts';
import type { AccountChange, AccountKey } from './account-change';

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
 * `user-before-commit` counts the `account` ones) and its logs; the rules are the same for all.
 */
export type TransactionKind = 'account' | 'operator' | 'reservation';

/**
 * One account transaction: reads under lock, then the changes. Every write of an account goes
 * through `apply`, which writes, in this order: the audit row (it names the ledger's actor), the
 * account and key rows of each change, the credit changes as ONE statement (pools, ledger rows,
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
  apply(changes: readonly AccountChange[], audit?: AuditWrite): Promise<void>;
}

/** The port: COMMIT when fn resolves, ROLLBACK when it throws (then the access closed in it is repaired from Postgres). */
export interface AccountTransactions {
  transaction<T>(kind: TransactionKind, fn: (tx: AccountTransaction) => Promise<T>): Promise<T>;
}
