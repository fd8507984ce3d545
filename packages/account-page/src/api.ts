import { ApiError, errorFromBody, refusalOf, type NotificationSettings, type WebhookDelivery } from '@platform/client';

/** What the user service tells the page at `/account/config.json`: where the auth service is, and the product catalogue. */
export interface PageConfig {
  authUrl: string;
  products: CatalogueProduct[];
  /** The operator's billing page (TOP_UP_URL), or null. */
  topUpUrl: string | null;
  /** BRAND_NAME. */
  brandName?: string;
}

export interface CatalogueProduct {
  id: number;
  name: string;
  /** The pool's id: its lowest product id. */
  poolId: number;
}

export interface BalanceRow {
  product_id: number;
  product: { id: number; name: string };
  credits: number;
}

export interface UsageRow {
  date: string;
  product_id: number;
  product: { id: number; name: string };
  credits_used: number;
}

export interface GrantedToken {
  token: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** The account the page is signed in as. */
export interface SignedInAccount {
  id: number;
  email: string;
}

/** Sends a request and parses the JSON answer; a refusal or a network failure becomes an ApiError. */
async function call(url: string, init: RequestInit = {}): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers: { Accept: 'application/json', ...init.headers } });
  } catch (error) {
    throw new ApiError({ status: 0, code: 'network_error', messages: 'No answer.', cause: error });
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = errorFromBody(
      response.status,
      body,
      response.headers.get('x-request-id') ?? undefined,
      undefined,
      refusalOf(response.headers),
    );
    const retryAfter = Number(response.headers.get('retry-after'));
    throw Number.isFinite(retryAfter) && retryAfter > 0 ? Object.assign(error, { retryAfterSeconds: retryAfter }) : error;
  }
  return body;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export async function loadPageConfig(): Promise<PageConfig> {
  return (await call('./config.json')) as PageConfig;
}

/**
 * CONTRACT §4.7: the key buys a page session (also when every pool is at 0), good for this
 * account's own data only. The key is not kept.
 */
export async function openSession(apiKey: string): Promise<GrantedToken & { account: SignedInAccount }> {
  if (!/^[\x21-\x7e]+$/.test(apiKey)) throw new ApiError({ status: 401, code: 401, messages: 'Not a key.' });
  const body = (await call('/account/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiKey }),
  })) as { session: string; expiresIn: number; account: SignedInAccount };
  return { token: body.session, expiresAt: Date.now() + body.expiresIn * 1000, account: body.account };
}

export async function readSignedIn(token: string): Promise<SignedInAccount> {
  return ((await call('/account/session', { headers: bearer(token) })) as { account: SignedInAccount }).account;
}

/** Ends the page session at once. */
export async function closeSession(token: string): Promise<void> {
  await call('/account/session/revoke', { method: 'POST', headers: bearer(token) });
}

export async function readBalance(token: string): Promise<BalanceRow[]> {
  return ((await call('/user-service/account-balance', { headers: bearer(token) })) as { data: BalanceRow[] }).data;
}

export async function readUsageHistory(token: string, days: number): Promise<UsageRow[]> {
  return ((await call(`/user-service/usage-history?days=${days}`, { headers: bearer(token) })) as { data: UsageRow[] }).data;
}

export async function readSettings(token: string): Promise<NotificationSettings> {
  return (await call('/user-service/notification-settings', { headers: bearer(token) })) as NotificationSettings;
}

/** The alert form as sent: the threshold as typed (null when empty). */
export interface SettingsForm {
  lowBalanceAlert: { enabled: boolean; threshold: string | null };
  zeroBalanceAlert: { enabled: boolean };
  /** Where alerts go; null goes back to the account's e-mail; absent leaves it as it is. */
  email?: string | null;
}

/** Changes the settings; the threshold goes as typed, so that the API judges it and names what is wrong. */
export async function saveSettings(token: string, form: SettingsForm): Promise<NotificationSettings> {
  return (await call('/user-service/notification-settings', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...bearer(token) },
    body: JSON.stringify(form),
  })) as NotificationSettings;
}

/** CONTRACT §4.4: only the key itself can replace the key. */
export async function rotateKey(currentApiKey: string): Promise<string> {
  const query = new URLSearchParams({ currentApiKey }).toString();
  return ((await call(`/user-service/api-key/generate?${query}`)) as { apiKey: string }).apiKey;
}

/** The settings' webhook as the API answers it; `secret` only right after the URL was set. */
export interface WebhookSettings {
  url: string;
  enabled: boolean;
  secret?: string;
  /** Why the platform turned it off (CONTRACT §6.1). */
  disabledReason?: 'gone' | 'failing';
}

/** Sets, changes or (null) removes the balance webhook; answers the webhook now set. */
export async function saveWebhook(token: string, webhook: { url: string; enabled: boolean } | null): Promise<WebhookSettings | null> {
  const body = (await call('/user-service/notification-settings', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...bearer(token) },
    body: JSON.stringify({ webhook }),
  })) as { webhook: WebhookSettings | null };
  return body.webhook;
}

export async function readWebhook(token: string): Promise<WebhookSettings | null> {
  return ((await call('/user-service/notification-settings', { headers: bearer(token) })) as { webhook: WebhookSettings | null }).webhook;
}

export interface TestDelivery {
  id: string;
  delivered: boolean;
  status: number | null;
  error: string | null;
}

export async function sendTestWebhook(token: string): Promise<TestDelivery> {
  return (await call('/user-service/notification-settings/webhook-test', { method: 'POST', headers: bearer(token) })) as TestDelivery;
}

export async function readDeliveries(token: string): Promise<WebhookDelivery[]> {
  return ((await call('/user-service/webhook-deliveries', { headers: bearer(token) })) as { data: WebhookDelivery[] }).data;
}

/** One top-up or adjustment (CONTRACT §4.8). */
export interface CreditChange {
  at: string;
  productId: number;
  product: { id: number; name: string };
  delta: number;
  credits: number;
  cause: 'top-up' | 'adjustment';
}

export async function readCreditHistory(token: string, cursor?: string): Promise<{ data: CreditChange[]; nextCursor: string | null }> {
  const query = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
  return (await call(`/user-service/credit-history${query}`, { headers: bearer(token) })) as {
    data: CreditChange[];
    nextCursor: string | null;
  };
}
