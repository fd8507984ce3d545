import type pg from 'pg';
import type { AccountTransactions } from '../domain/account-transaction';
import type { UserStore } from '../domain/user-store';
import { findAccount } from './accounts';
import { readBalances } from './balances';
import { findProducts, type KeptCatalogue } from './catalogue';
import { readNotificationSettings } from './notification-settings';

/** The domain's UserStore on Postgres: its reads on the pool, its changes through the one account transaction. */
export function createUserStore(pool: pg.Pool, accounts: AccountTransactions, kept: KeptCatalogue): UserStore {
  return {
    findAccount: (accountId) => findAccount(pool, accountId),
    findProducts: (ids) => findProducts(kept, pool, ids),
    readBalances: (accountId) => readBalances(pool, kept, accountId),
    readNotificationSettings: (accountId) => readNotificationSettings(pool, accountId),
    accounts,
  };
}
