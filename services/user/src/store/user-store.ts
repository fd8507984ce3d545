import type pg from 'pg';
import type { AccessWriter } from '@platform/credentials';
import { withTransaction, type Queryable } from '@platform/db';
import { accessRecordWrites, withAccessRepair, type AccessRepair, type AccessRecordWrites } from './access-records';
import { findAccount, insertAccount } from './accounts';
import { insertApiKey, lockActiveKey, replaceApiKey, type LockedKey } from './api-keys';
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

/** A transaction's queries, with the access-store writes that must precede its commit (CONTRACT §3). */
export type UserTransaction = UserQueries & AccessRecordWrites;

export interface UserStore extends UserQueries {
  /**
   * Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws; the access
   * records it wrote are then repaired from what Postgres holds.
   */
  transaction<T>(fn: (tx: UserTransaction) => Promise<T>): Promise<T>;
}

/** Where the store writes access records: the access store and the repair of failed transactions. */
export interface AccessRecordsDeps {
  writer: AccessWriter;
  repair: AccessRepair;
}

export function createUserStore(pool: pg.Pool, access: AccessRecordsDeps): UserStore {
  return {
    ...bind(pool),
    transaction: (fn) =>
      withAccessRepair(access.repair, (touched) =>
        withTransaction(pool, (client) => fn({ ...bind(client), ...accessRecordWrites(client, access.writer, touched) })),
      ),
  };
}
