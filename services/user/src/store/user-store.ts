import type pg from 'pg';
import { activeKeysForUpdate } from '@platform/accounts';
import { withTransaction, type Queryable } from '@platform/db';
import type { BalanceChanged } from '@platform/events';
import type { UserQueries, UserStore } from '../domain/user-store';
import { accessRecordWrites, withAccessRules, type AccessRecordsDeps } from './access-records';
import { findAccount, insertAccount } from './accounts';
import { insertApiKey, lockActiveKey, replaceApiKey } from './api-keys';
import { changeBalance, holdPool, readBalances, writeCommitEvents } from './balances';
import { findProducts, type KeptCatalogue } from './catalogue';
import { readNotificationSettings, updateNotificationSettings } from './notification-settings';
import { writeAudit } from './operator';

/** The user service's queries, bound to the pool or to one transaction's client. */
function bind(db: Queryable, kept: KeptCatalogue): UserQueries {
  return {
    findAccount: (accountId) => findAccount(db, accountId),
    insertAccount: (email) => insertAccount(db, email),
    insertApiKey: (accountId, keyHash) => insertApiKey(db, accountId, keyHash),
    lockActiveKey: (keyHash) => lockActiveKey(db, keyHash),
    replaceApiKey: (locked, newKeyHash, generation) => replaceApiKey(db, locked, newKeyHash, generation),
    findProducts: (ids) => findProducts(kept, db, ids),
    readBalances: (accountId) => readBalances(db, kept, accountId),
    holdPool: (accountId, poolId) => holdPool(db, accountId, poolId),
    readNotificationSettings: (accountId) => readNotificationSettings(db, accountId),
    updateNotificationSettings: (accountId, patch) => updateNotificationSettings(db, accountId, patch),
    audit: (entry) => writeAudit(db, entry),
  };
}

/** The domain's UserStore on Postgres, with the access-store writes of CONTRACT §3 around its transactions (access-records.ts). */
export function createUserStore(pool: pg.Pool, access: AccessRecordsDeps, kept: KeptCatalogue): UserStore {
  return {
    ...bind(pool, kept),
    transaction: (fn) =>
      withAccessRules(access, (effects) =>
        withTransaction(pool, async (client) => {
          const events: BalanceChanged[] = [];
          const result = await fn({
            ...bind(client, kept),
            ...accessRecordWrites(client, effects),
            // The credit write path; its side effects as access-records.ts declares them.
            async changeBalance(change) {
              const result = await changeBalance(client, change);
              if (result.ok) {
                if (result.event) events.push(result.event);
                const { accountId, poolId } = change;
                await effects.creditChanged(
                  { accountId, poolId, previousCredits: result.previousCredits, credits: result.credits },
                  { activeKeys: () => activeKeysForUpdate(client, accountId), grant: () => effects.grant(client, accountId) },
                );
              }
              return result;
            },
          });
          // Every balance change of the commit, as one outbox message (CONTRACT §6).
          await writeCommitEvents(client, events);
          await access.pause?.('user-before-commit');
          return result;
        }),
      ),
  };
}
