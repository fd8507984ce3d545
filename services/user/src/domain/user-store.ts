import type { AccountRecord, AccountTransactions } from './account-transaction';
import type { Product } from './catalogue';
import type { NotificationSettings } from './settings';

export type { AccountRecord } from './account-transaction';

/** One held product with its pool's credits. */
export interface ProductBalance {
  productId: number;
  productName: string;
  credits: number;
}

/** One pool the account holds and its credits. */
export interface PoolCredits {
  poolId: number;
  credits: number;
}

/** The user service's queries on the pool (its writes go through the account transaction). */
export interface UserQueries {
  findAccount(accountId: number): Promise<AccountRecord | undefined>;
  /** The catalogue entries among `ids`, ordered by id (unknown ids are simply missing). */
  findProducts(ids: number[]): Promise<Product[]>;
  /** Every product the account holds (a held pool holds all its products), ordered by product id. */
  readBalances(accountId: number): Promise<ProductBalance[]>;
  readNotificationSettings(accountId: number): Promise<NotificationSettings>;
}

/** The user service's reads on the pool, and the one account transaction for its changes (it opens none of its own). */
export interface UserStore extends UserQueries {
  accounts: AccountTransactions;
}
