import type { CreditCause } from './account-change';
import type { AccountTransactions } from './account-transaction';
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
  cause: CreditCause;
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

export interface OperatorReads {
  searchAccounts(search: AccountSearch): Promise<AccountSummary[]>;
  /** The pools of each of `accountIds` (absent: none held), ordered by pool id. */
  poolsOf(accountIds: readonly number[]): Promise<Map<number, AccountPool[]>>;
  /** The account's balance changes with ids below `before`, newest first. */
  ledgerPage(accountId: number, before: number | undefined, limit: number): Promise<LedgerEntry[]>;
  /** Audit rows that pass `filter` with ids below `before`, newest first. */
  auditPage(filter: AuditFilter, before: number | undefined, limit: number): Promise<AuditEntry[]>;
}

/** The operator's reads, and the one account transaction for its changes (it opens none of its own). */
export interface OperatorStore extends OperatorReads {
  accounts: AccountTransactions;
}
