import type { AccountRecord, AccountTransactions } from './account-transaction';
import type { Product } from './catalogue';

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

/** The balance webhook as stored (CONTRACT §6.1); the secret never leaves the service but once. */
export interface WebhookSetting {
  url: string;
  enabled: boolean;
  /** Why the service disabled it (CONTRACT §6.1): a 410 Gone, or 5 days of failures; absent otherwise. */
  disabledReason?: 'gone' | 'failing';
}

export interface NotificationSettings {
  lowBalanceAlert: { enabled: boolean; threshold: number };
  zeroBalanceAlert: { enabled: boolean };
  /** Where alert e-mails go: the settings' address, else the account's. */
  email: string;
  webhook: WebhookSetting | null;
}

/** Fields to change; absent fields keep their stored (or default) value. */
export interface NotificationSettingsPatch {
  lowBalanceEnabled?: boolean;
  lowBalanceThreshold?: number;
  zeroBalanceEnabled?: boolean;
  /** null: back to the account's e-mail. */
  email?: string | null;
  /** null: removes the webhook; `url` and `enabled` change what they name. */
  webhook?: { url?: string; enabled?: boolean } | null;
}

/** The store's form of a patch: a webhook change is whole (its secret chosen by the domain). */
export type StoredSettingsPatch = Omit<NotificationSettingsPatch, 'webhook'> & {
  webhook?: (WebhookSetting & { secret: string | undefined }) | null;
};

/** The user service's queries on the pool (its writes go through the account transaction). */
export interface UserQueries {
  findAccount(accountId: number): Promise<AccountRecord | undefined>;
  /** The catalogue entries among `ids`, ordered by id (unknown ids are simply missing). */
  findProducts(ids: number[]): Promise<Product[]>;
  /** Every product the account holds (a held pool holds all its products), ordered by product id. */
  readBalances(accountId: number): Promise<ProductBalance[]>;
  readNotificationSettings(accountId: number): Promise<NotificationSettings>;
  updateNotificationSettings(accountId: number, patch: StoredSettingsPatch): Promise<NotificationSettings>;
}

/** The user service's reads on the pool, and the one account transaction for its changes (it opens none of its own). */
export interface UserStore extends UserQueries {
  accounts: AccountTransactions;
}
