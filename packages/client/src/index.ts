export { ApiError, errorFromBody, type ApiErrorInit, type ErrorMessages } from './api-error.js';
export { AccountAccessClient, type AccountAccessClientOptions } from './client.js';
export { REFUSAL_SENTENCES, refusalOf, refusalSentence, refusalTime, type RefusalHeaders } from './refusal.js';
export { MeteringClient, type MeteringClientOptions, type ReserveRequest } from './metering-client.js';
export type { ServiceJwtSource } from './service-jwt.js';
export type { FetchFunction } from './http.js';
export type {
  BalanceItem,
  Category,
  CategoryOrder,
  NotificationSettings,
  NotificationSettingsPatch,
  Reservation,
  ReservationEnd,
  TokenLifetime,
  UsageDay,
  WebhookDelivery,
} from './types.js';
export type * as AuthApi from './generated/auth.js';
export type * as UserApi from './generated/user.js';
export type * as UserAdminApi from './generated/user-admin.js';
export type * as CategorizationApi from './generated/categorization.js';
export type * as CategorizationAdminApi from './generated/categorization-admin.js';
