import type pg from 'pg';
import { withTransaction, type Queryable } from '@platform/db';
import { accessRecordWrites, withAccessRepair, type AccessTouched } from './access-records';
import { changeBalance, type BalanceChange } from './balances';
import { findProducts } from './catalogue';
import { claimUsageRequest, saveUsageAnswer, type UsageAnswer } from './usage-requests';
import type { AccessRecordsDeps } from './user-store';

function bind(db: Queryable) {
  return {
    findProducts: (ids: number[]) => findProducts(db, ids),
    claimUsageRequest: (requestId: string, digest: string) => claimUsageRequest(db, requestId, digest),
    saveUsageAnswer: (requestId: string, answer: UsageAnswer) => saveUsageAnswer(db, requestId, answer),
    changeBalance: (change: BalanceChange) => changeBalance(db, change),
  };
}

/** The usage API's queries, bound to the pool or to one transaction's client. */
export type UsageQueries = ReturnType<typeof bind>;

/** A usage transaction: its queries and the port of CONTRACT §3 that a debit to 0 calls before its commit. */
export interface UsageTransaction extends UsageQueries {
  /** The pool reached 0: the access records of the account's keys say so before the commit (issuance refuses at 0). */
  markPoolEmpty(accountId: number, poolId: number): Promise<void>;
}

export interface UsageStore extends UsageQueries {
  /** Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws (and access records repaired). */
  transaction<T>(fn: (tx: UsageTransaction) => Promise<T>): Promise<T>;
}

function bindTransaction(client: Queryable, access: AccessRecordsDeps, touched: AccessTouched): UsageTransaction {
  const writes = accessRecordWrites(client, access.writer, touched);
  return { ...bind(client), markPoolEmpty: (accountId, poolId) => writes.recordPoolCredit(accountId, poolId, false) };
}

export function createUsageStore(pool: pg.Pool, access: AccessRecordsDeps): UsageStore {
  return {
    ...bind(pool),
    transaction: (fn) =>
      withAccessRepair(access.repair, (touched) => withTransaction(pool, (client) => fn(bindTransaction(client, access, touched)))),
  };
}
