import type pg from 'pg';
import type { AccessWriter } from '@platform/credentials';
import { withTransaction, type Queryable } from '@platform/db';
import type { BalanceChanged } from '@platform/events';
import type { UserQueries, UserStore } from '../domain/user-store';
import { accessRecordWrites, withAccessRepair, type AccessRepair } from './access-records';
import { findAccount, insertAccount } from './accounts';
import { insertApiKey, lockActiveKey, replaceApiKey } from './api-keys';
import { changeBalance, holdPool, readBalances } from './balances';
import { findProducts } from './catalogue';
import { insertOutboxEvents } from './outbox';
import { readNotificationSettings, updateNotificationSettings } from './notification-settings';

/**
 * The user service's queries, bound to the pool or to one transaction's client. In a
 * transaction, the balance changes' events are collected in `outbox` and written at its end
 * as one message; outside one, each change writes its own.
 */
function bind(db: Queryable, outbox?: BalanceChanged[]): UserQueries {
  return {
    findAccount: (accountId) => findAccount(db, accountId),
    insertAccount: (email) => insertAccount(db, email),
    insertApiKey: (accountId, keyHash) => insertApiKey(db, accountId, keyHash),
    lockActiveKey: (keyHash) => lockActiveKey(db, keyHash),
    replaceApiKey: (locked, newKeyHash, generation) => replaceApiKey(db, locked, newKeyHash, generation),
    findProducts: (ids) => findProducts(db, ids),
    readBalances: (accountId) => readBalances(db, accountId),
    holdPool: (accountId, poolId) => holdPool(db, accountId, poolId),
    changeBalance: async (change) => {
      const result = await changeBalance(db, change);
      if (result.ok && result.event) {
        if (outbox) outbox.push(result.event);
        else await insertOutboxEvents(db, [result.event]);
      }
      return result;
    },
    readNotificationSettings: (accountId) => readNotificationSettings(db, accountId),
    updateNotificationSettings: (accountId, patch) => updateNotificationSettings(db, accountId, patch),
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
        withTransaction(pool, async (client) => {
          const events: BalanceChanged[] = [];
          const result = await fn({ ...bind(client, events), ...accessRecordWrites(client, access.writer, touched) });
          // Every balance change of the commit, as one outbox message (CONTRACT §6).
          await insertOutboxEvents(client, events);
          return result;
        }),
      ),
  };
}
