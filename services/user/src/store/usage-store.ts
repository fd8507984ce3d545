import type pg from 'pg';
import { withTransaction, type Queryable } from '@platform/db';
import { changeBalance, type BalanceChange } from './balances';
import { findProducts } from './catalogue';
import { claimUsageRequest, saveUsageAnswer, type UsageAnswer } from './usage-requests';

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

export interface UsageStore extends UsageQueries {
  /** Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws. */
  transaction<T>(fn: (tx: UsageQueries) => Promise<T>): Promise<T>;
}

export function createUsageStore(pool: pg.Pool): UsageStore {
  return { ...bind(pool), transaction: (fn) => withTransaction(pool, (client) => fn(bind(client))) };
}
