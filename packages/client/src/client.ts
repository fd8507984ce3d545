import { ApiError } from './api-error.js';
import { discard, readJson, send, type FetchFunction, type HttpRequest } from './http.js';
import { TokenCache, type GrantedToken } from './token-cache.js';
import type {
  ApiKeyResponse,
  BalanceItem,
  BalanceQuery,
  BalanceResponse,
  Category,
  CategoryOrder,
  NotificationSettings,
  NotificationSettingsPatch,
  TokenLifetime,
  TokenRequest,
  TokenResponse,
  UsageDay,
  UsageHistoryQuery,
  UsageHistoryResponse,
} from './types.js';

/** Options of {@link AccountAccessClient}. */
export interface AccountAccessClientOptions {
  /**
   * The account's API key, or a function that reads it (from a secret store, say), asked each
   * time a token is fetched, so a key rotated elsewhere is picked up. After `rotateKey()` the
   * client uses the key that call returned.
   */
  apiKey: string | (() => string | Promise<string>);
  /** Base URL of the auth service, e.g. `http://127.0.0.1:8081`. */
  authUrl: string;
  /** Base URL of the user service. */
  userUrl: string;
  /** Base URL of the categorization service. */
  categorizationUrl: string;
  /** Lifetime of the access tokens the client asks for, in seconds (default 3600). */
  expiresIn?: TokenLifetime;
  /** The fetch to call (default: the platform's `fetch`). */
  fetch?: FetchFunction;
  /** Clock in epoch milliseconds (default `Date.now`); decides when a token is renewed. */
  now?: () => number;
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '');
const JSON_HEADERS = { Accept: 'application/json' };

/**
 * Client of the account access platform. It trades the API key for an access token, caches
 * the token and renews it a minute before it expires, and calls every other endpoint with it.
 * 429 and 503 answers are retried (at most 3 times, as Retry-After asks); a token refused with
 * 401 is replaced once and the call repeated once. Every failure is an {@link ApiError}.
 */
export class AccountAccessClient {
  private key: () => string | Promise<string>;
  private readonly urls: { auth: string; user: string; categorization: string };
  private readonly expiresIn: TokenLifetime;
  private readonly fetchFn: FetchFunction;
  private readonly tokens: TokenCache;
  private readonly categoryCache = new Map<CategoryOrder, { etag: string; categories: readonly Readonly<Category>[] }>();

  constructor(options: AccountAccessClientOptions) {
    const { apiKey } = options;
    this.key = typeof apiKey === 'string' ? () => apiKey : apiKey;
    this.urls = {
      auth: trimSlash(options.authUrl),
      user: trimSlash(options.userUrl),
      categorization: trimSlash(options.categorizationUrl),
    };
    this.expiresIn = options.expiresIn ?? 3600;
    // Called through a closure: browsers refuse a fetch detached from `globalThis`.
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.tokens = new TokenCache(() => this.grantToken(), options.now ?? Date.now);
  }

  /** An access token for the key: the cached one while it has more than a minute left. */
  accessToken(): Promise<string> {
    return this.tokens.get();
  }

  /** The credits of every product the account holds, or of one product. */
  async balance(options: { productId?: number } = {}): Promise<BalanceItem[]> {
    const query: BalanceQuery = options.productId === undefined ? {} : { productId: String(options.productId) };
    const response = await this.withToken((token) => this.getRequest(`${this.urls.user}/user-service/account-balance`, query, token));
    const body = (await readJson(response)) as BalanceResponse;
    return body.data.map((item) => ({ productId: item.product_id, productName: item.product.name, credits: item.credits }));
  }

  /**
   * Credits used per UTC day and product over the last `days` days (1–90, default 30), today
   * included, ordered by date, then product id; optionally of one product only.
   */
  async usageHistory(options: { days?: number; productId?: number } = {}): Promise<UsageDay[]> {
    const query: UsageHistoryQuery = {};
    if (options.days !== undefined) query.days = String(options.days);
    if (options.productId !== undefined) query.productId = String(options.productId);
    const response = await this.withToken((token) => this.getRequest(`${this.urls.user}/user-service/usage-history`, query, token));
    const body = (await readJson(response)) as UsageHistoryResponse;
    return body.data.map((item) => ({
      date: item.date,
      productId: item.product_id,
      productName: item.product.name,
      creditsUsed: item.credits_used,
    }));
  }

  /**
   * Replaces the API key. The old key and every token issued before stop working at once; the
   * client switches to the new key, which it returns so that the caller can store it.
   */
  async rotateKey(): Promise<string> {
    const currentApiKey = await this.key();
    const response = await send(this.fetchFn, this.getRequest(`${this.urls.user}/user-service/api-key/generate`, { currentApiKey }));
    const { apiKey } = (await readJson(response)) as ApiKeyResponse;
    this.key = () => apiKey;
    this.tokens.clear();
    return apiKey;
  }

  /**
   * Every category, by id (`IAB`, default) or by name (`ABC`). The list is revalidated with the
   * last ETag, so an unchanged list costs a 304 and no body.
   */
  async categories(options: { order?: CategoryOrder } = {}): Promise<readonly Readonly<Category>[]> {
    const order = options.order ?? 'IAB';
    const cached = this.categoryCache.get(order);
    const response = await this.withToken((token) => {
      const request = this.getRequest(`${this.urls.categorization}/api/v2/categories`, { order }, token);
      // The ETag is opaque: it names the representation (coding included) the server chose.
      if (cached) request.headers['If-None-Match'] = cached.etag;
      return request;
    });
    if (response.status === 304 && cached) {
      await discard(response);
      return cached.categories;
    }
    const categories = Object.freeze(((await readJson(response)) as Category[]).map((category) => Object.freeze(category)));
    const etag = response.headers.get('etag');
    if (etag) this.categoryCache.set(order, { etag, categories });
    else this.categoryCache.delete(order);
    return categories;
  }

  /** The account's alert settings. */
  async notificationSettings(): Promise<NotificationSettings> {
    const response = await this.withToken((token) => this.getRequest(`${this.urls.user}/user-service/notification-settings`, {}, token));
    return (await readJson(response)) as NotificationSettings;
  }

  /** Changes the members `patch` names and answers the whole document. */
  async updateNotificationSettings(patch: NotificationSettingsPatch): Promise<NotificationSettings> {
    const response = await this.withToken((token) => ({
      method: 'POST',
      url: `${this.urls.user}/user-service/notification-settings`,
      headers: { ...JSON_HEADERS, 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(patch),
    }));
    return (await readJson(response)) as NotificationSettings;
  }

  private getRequest(url: string, query: Record<string, string>, token?: string): HttpRequest {
    const search = new URLSearchParams(query).toString();
    const headers: Record<string, string> =
      token === undefined ? { ...JSON_HEADERS } : { ...JSON_HEADERS, Authorization: `Bearer ${token}` };
    return { method: 'GET', url: search === '' ? url : `${url}?${search}`, headers };
  }

  /** Sends with the cached token; a 401 replaces that token once and sends once more. */
  private async withToken(build: (token: string) => HttpRequest): Promise<Response> {
    const token = await this.tokens.get();
    const response = await send(this.fetchFn, build(token));
    if (response.status !== 401) return response;
    await discard(response);
    this.tokens.discard(token);
    return send(this.fetchFn, build(await this.tokens.get()));
  }

  private async grantToken(): Promise<GrantedToken> {
    const key = await this.key();
    // btoa takes Latin-1 only; such a key cannot be a key, and no request could carry it.
    if (!/^[\x21-\x7e]+$/.test(key)) {
      throw new ApiError({ status: 0, code: 'invalid_api_key', messages: 'The API key is empty or holds characters no API key has.' });
    }
    const body: TokenRequest = { grantType: 'access_token', expiresIn: this.expiresIn };
    const response = await send(this.fetchFn, {
      method: 'POST',
      url: `${this.urls.auth}/oauth/token`,
      // The seed flow takes the key Base64-encoded.
      headers: { ...JSON_HEADERS, 'Content-Type': 'application/json', Authorization: `Bearer ${btoa(key)}` },
      body: JSON.stringify(body),
    });
    const granted = (await readJson(response)) as TokenResponse;
    if (typeof granted?.accessToken !== 'string' || typeof granted.expiresIn !== 'number') {
      throw new ApiError({ status: response.status, code: 'invalid_response', messages: 'The token answer has no accessToken.' });
    }
    return granted;
  }
}
