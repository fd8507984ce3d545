import type pg from 'pg';
import type { AccessWriter } from '@platform/credentials';
import { withTransaction, type Queryable } from '@platform/db';
import type { UserQueries, UserStore } from '../domain/user-store';
import { accessRecordWrites, withAccessRepair, type AccessRepair } from './access-records';
import { findAccount, insertAccount } from './accounts';
import { insertApiKey, lockActiveKey, replaceApiKey } from './api-keys';
import { changeBalance, holdPool, readBalances } from './balances';
import { findProducts } from './catalogue';
import { readNotificationSettings, updateNotificationSettings } from './notification-settings';
import { writeAudit } from './operator';

/** The user service's queries, bound to the pool or to one transaction's client. */
function bind(db: Queryable): UserQueries {
  return {
    findAccount: (accountId) => findAccount(db, accountId),
    insertAccount: (email) => insertAccount(db, email),
    insertApiKey: (accountId, keyHash) => insertApiKey(db, accountId, keyHash),
    lockActiveKey: (keyHash) => lockActiveKey(db, keyHash),
    replaceApiKey: (locked, newKeyHash, generation) => replaceApiKey(db, locked, newKeyHash, generation),
    findProducts: (ids) => findProducts(db, ids),
    readBalances: (accountId) => readBalances(db, accountId),
    holdPool: (accountId, poolId) => holdPool(db, accountId, poolId),
    changeBalance: (change) => changeBalance(db, change),
    readNotificationSettings: (accountId) => readNotificationSettings(db, accountId),
    updateNotificationSettings: (accountId, patch) => updateNotificationSettings(db, accountId, patch),
    audit: (entry) => writeAudit(db, entry),
  };
}

/** Where the store writes access records: the access store and the repair of failed transactions. */
export interface AccessRecordsDeps {
  writer: AccessWriter;
  repair: AccessRepair;
}

/** The domain's UserStore on Postgres, with the access-store writes of CONTRACT §3 in its transactions. */
export function createUserStore(pool: pg.Pool, access: AccessRecordsDeps): UserStore {
  return {
    ...bind(pool),
    transaction: (fn) =>
      withAccessRepair(access.repair, (touched) =>
        withTransaction(pool, (client) => fn({ ...bind(client), ...accessRecordWrites(client, access.writer, touched) })),
      ),
  };
}
