import type { AdminAuditRow } from '@platform/accounts';
/** What the operator's admin API reads and writes (CONTRACT §7, "what an operator of the business needs"). */

/** An account as a search lists it. */
export interface AccountSummary {
  id: number;
  email: string;
  createdAt: Date;
  disabled: boolean;
}

/** A search: every condition given must hold; newest first, ids below `before`. */
export interface AccountSearch {
  /** Exact e-mail, compared case-insensitively. */
  email?: string;
  /** A substring of the e-mail (case-insensitive), or, when it is numeric, the account's id. */
  q?: string;
  /** `active`: not disabled; `disabled`: disabled by an operator. */
  status?: 'active' | 'disabled';
  /** `low`: some pool below the account's low threshold; `empty`: some pool at 0. */
  balance?: 'low' | 'empty';
  before?: number;
  limit: number;
}

/** One pool an account holds (`poolId`: its lowest product id) and its credits. */
export interface AccountPool {
  poolId: number;
  credits: number;
}

export interface LedgerEntry {
  id: number;
  productId: number;
  delta: number;
  credits: number;
  cause: 'usage' | 'top-up' | 'adjustment' | 'hold' | 'release';
  /** The admin token's name; null for usage (and for changes made before actors were kept). */
  actor: string | null;
  at: Date;
}

export interface AuditEntry {
  id: number;
  at: Date;
  actor: string;
  action: string;
  accountId: number | null;
  details: Record<string, unknown>;
}

/** Which audit rows to read: every condition given must hold (`from` inclusive, `to` exclusive). */
export interface AuditFilter {
  accountId?: number;
  actor?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

/** One audit row, written in the transaction of the change it describes. */
export type AuditWrite = AdminAuditRow;

/** An account row locked for a change, with its latest key (the one an enabling reactivates). */
export interface LockedAccount {
  id: number;
  email: string;
  disabled: boolean;
  generation: number;
  keyId: number;
  keyHash: string;
  keyActive: boolean;
}

export interface OperatorReads {
  searchAccounts(search: AccountSearch): Promise<AccountSummary[]>;
  /** The pools of each of `accountIds` (absent: none held), ordered by pool id. */
  poolsOf(accountIds: readonly number[]): Promise<Map<number, AccountPool[]>>;
  /** The account's balance changes with ids below `before`, newest first. */
  ledgerPage(accountId: number, before: number | undefined, limit: number): Promise<LedgerEntry[]>;
  /** Audit rows that pass `filter` with ids below `before`, newest first. */
  auditPage(filter: AuditFilter, before: number | undefined, limit: number): Promise<AuditEntry[]>;
}

/** One operator change: SQL, the audit row, and the access-store writes that close access before the commit. */
export interface OperatorTransaction {
  /** Writes the audit row and names the actor of every ledger row this transaction writes after it. */
  audit(entry: AuditWrite): Promise<void>;
  /** Locks the account row (FOR UPDATE); undefined when there is no such account. */
  lockAccount(accountId: number): Promise<LockedAccount | undefined>;
  /** False when another account has this e-mail (compared case-insensitively). */
  changeEmail(accountId: number, email: string): Promise<boolean>;
  /** Marks the account disabled, deactivates its key and raises its key generation (earlier tokens stay revoked). */
  disable(account: LockedAccount): Promise<void>;
  /** Marks the account enabled and reactivates its latest key (the access record is written after the commit). */
  enable(account: LockedAccount): Promise<void>;
  /** Replaces the latest key (active unless the account is disabled) and raises the key generation. */
  replaceKey(account: LockedAccount, newKeyHash: string): Promise<void>;
  /** Removes the access records of these keys before the commit (CONTRACT §3: closing writes first); a failure fails the change (503). */
  closeAccess(accountId: number, keyHashes: string[]): Promise<void>;
  /** The new key goes on in the replaced key's issuance window (TOKEN_RATE_PER_ACCOUNT counts per account), before the commit. */
  carryIssuanceWindow(accountId: number, fromKeyHash: string, toKeyHash: string): Promise<void>;
  /** Opens access (an enabled account, a new key): recorded in this transaction, written to the access store after its commit. */
  openAccess(accountId: number): Promise<void>;
}

export interface OperatorStore extends OperatorReads {
  /** COMMIT when fn resolves, ROLLBACK when it throws (then the access records touched are rewritten from Postgres); access opened in it is written after the commit. */
  transaction<T>(fn: (tx: OperatorTransaction) => Promise<T>): Promise<T>;
}
