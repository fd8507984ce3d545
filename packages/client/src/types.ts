/** The client's request and response types, derived from the types generated from the services' OpenAPI documents. */
import type { paths as AuthPaths } from './generated/auth.js';
import type { paths as CategorizationPaths, components as CategorizationComponents } from './generated/categorization.js';
import type { paths as UserPaths, components as UserComponents } from './generated/user.js';
import type { components as UserAdminComponents } from './generated/user-admin.js';

type TokenOperation = AuthPaths['/oauth/token']['post'];
type TokenRequestBody = NonNullable<TokenOperation['requestBody']>['content']['application/json'];

/** Body of the seed flow's token request. */
export type TokenRequest = Omit<TokenRequestBody, 'outputFormat'>;
/** Body of the seed flow's token answer. */
export type TokenResponse = Extract<TokenOperation['responses'][200]['content']['application/json'], { accessToken: string }>;
/** Lifetimes (seconds) the token endpoint grants. */
export type TokenLifetime = Exclude<NonNullable<TokenRequestBody['expiresIn']>, string>;

type BalanceOperation = UserPaths['/user-service/account-balance']['get'];
export type BalanceResponse = BalanceOperation['responses'][200]['content']['application/json'];
export type BalanceQuery = NonNullable<BalanceOperation['parameters']['query']>;

/** One product the account holds; products that share a pool show the same credits. */
export interface BalanceItem {
  productId: number;
  productName: string;
  credits: number;
}

type UsageHistoryOperation = UserPaths['/user-service/usage-history']['get'];
export type UsageHistoryResponse = UsageHistoryOperation['responses'][200]['content']['application/json'];
export type UsageHistoryQuery = NonNullable<UsageHistoryOperation['parameters']['query']>;

/** Credits one product used on one UTC day (usage API debits only; days without usage have no item). */
export interface UsageDay {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  productId: number;
  productName: string;
  creditsUsed: number;
}

export type ApiKeyResponse = UserPaths['/user-service/api-key/generate']['get']['responses'][200]['content']['application/json'];

/** One balance-webhook delivery attempt (`webhook-deliveries`, and the admin account view's last ones). */
export type WebhookDelivery = UserComponents['schemas']['WebhookAttempt'];

/** `{"lowBalanceAlert": {"enabled", "threshold"}, "zeroBalanceAlert": {"enabled"}}` */
export type NotificationSettings = UserComponents['schemas']['NotificationSettings'];

/** Any nested subset of the settings; members not named keep their value. */
export type NotificationSettingsPatch = {
  [Group in keyof NotificationSettings]?: Partial<NotificationSettings[Group]>;
};

type CategoriesOperation = CategorizationPaths['/api/v2/categories']['get'];

/** `{"id": "IAB-1", "name": "Automotive", "parent": null}` */
export type Category = CategorizationComponents['schemas']['Category'];
/** `IAB` (by id, the default) or `ABC` (by name). */
export type CategoryOrder = NonNullable<NonNullable<CategoriesOperation['parameters']['query']>['order']>;

/** A reservation of the internal usage API: `{reservationId, accountId, productId, units, expiresAt, credits}`. */
export type Reservation = UserAdminComponents['schemas']['Reservation'];
/** The end of a reservation: `{reservationId, charged, released, credits}`. */
export type ReservationEnd = UserAdminComponents['schemas']['ReservationEnd'];
