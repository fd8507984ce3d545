import type pg from 'pg';
import { withTransaction, type Queryable } from '@platform/db';
import { findAccount, insertAccount } from './accounts';
import { insertApiKey, lockActiveKey, raiseKeyGeneration, replaceApiKey, type LockedKey } from './api-keys';
import { changeBalance, holdPool, readBalances, readProductBalance, type BalanceChange } from './balances';
import { findProducts } from './catalogue';
import { readNotificationSettings, updateNotificationSettings, type NotificationSettingsPatch } from './notification-settings';

function bind(db: Queryable) {
  return {
    findAccount: (accountId: number) => findAccount(db, accountId),
    insertAccount: (email: string) => insertAccount(db, email),
    insertApiKey: (accountId: number, keyHash: string) => insertApiKey(db, accountId, keyHash),
    lockActiveKey: (keyHash: string) => lockActiveKey(db, keyHash),
    replaceApiKey: (locked: LockedKey, newKeyHash: string, generation: number) => replaceApiKey(db, locked, newKeyHash, generation),
    raiseKeyGeneration: (accountId: number, generation: number) => raiseKeyGeneration(db, accountId, generation),
    findProducts: (ids: number[]) => findProducts(db, ids),
    readBalances: (accountId: number) => readBalances(db, accountId),
    readProductBalance: (accountId: number, productId: number) => readProductBalance(db, accountId, productId),
    holdPool: (accountId: number, poolId: number) => holdPool(db, accountId, poolId),
    changeBalance: (change: BalanceChange) => changeBalance(db, change),
    readNotificationSettings: (accountId: number) => readNotificationSettings(db, accountId),
    updateNotificationSettings: (accountId: number, patch: NotificationSettingsPatch) => updateNotificationSettings(db, accountId, patch),
  };
}

/** The user service's queries, bound to the pool or to one transaction's client. */
export type UserQueries = ReturnType<typeof bind>;

export interface UserStore extends UserQueries {
  /** Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws. */
  transaction<T>(fn: (tx: UserQueries) => Promise<T>): Promise<T>;
}

export function createUserStore(pool: pg.Pool): UserStore {
  return { ...bind(pool), transaction: (fn) => withTransaction(pool, (client) => fn(bind(client))) };
}
