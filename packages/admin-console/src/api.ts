/** The user service's admin API (CONTRACT §7), called from the console with the operator's admin token. */
import type { WebhookDelivery } from '@platform/client';

const TOKEN_KEY = 'operator-console.adminToken';

/** The admin token lives in this tab's sessionStorage only: never localStorage, never a cookie. */
export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  save: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

export interface Account {
  id: number;
  email: string;
  createdAt: string;
  disabled: boolean;
}

/** An account as the list shows it: with its pools' credits. */
export interface AccountItem extends Account {
  pools: Array<{ pool: number[]; credits: number }>;
}

export interface AccountDetails extends Account {
  balances: Array<{ product_id: number; product: { id: number; name: string }; credits: number }>;
  notifications: {
    email: string;
    lowBalanceAlert: { enabled: boolean; threshold: number };
    zeroBalanceAlert: { enabled: boolean };
    webhook: { url: string; enabled: boolean; disabledReason?: 'gone' | 'failing' } | null;
  };
  webhookDeliveries: WebhookDelivery[];
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface LedgerRow {
  id: number;
  productId: number;
  delta: number;
  credits: number;
  cause: string;
  actor: string;
  at: string;
}

export interface AuditRow {
  at: string;
  actor: string;
  action: string;
  accountId: number | null;
  details: Record<string, unknown>;
}

export interface DailyUsage {
  date: string;
  productId: number;
  productName: string;
  creditsUsed: number;
}

export interface Product {
  id: number;
  name: string;
  pool: number[];
}

export interface AdminSession {
  actor: string;
  role: 'admin' | 'support';
  /** BRAND_NAME. */
  brandName: string;
}

/** Why the platform refused (X-Refusal-Reason), in the console's words. */
const REASONS: Record<string, string> = {
  wrong_admin_token: 'Wrong admin token: it is none of the service’s ADMIN_TOKEN or ADMIN_TOKENS.',
  read_only_admin: 'This admin token may only read (role support).',
  rate_limited: 'Too many failed attempts from this address. Wait a minute and try again.',
};

/** An answer other than 2xx: the status, the contract's `messages` and the refusal reason, if any. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string | Record<string, string[]>,
    readonly reason?: string,
  ) {
    super(
      (reason === undefined ? undefined : REASONS[reason]) ??
        (typeof messages === 'string' ? messages : Object.values(messages).flat().join(' ')),
    );
  }
}

type Query = Record<string, string | undefined>;

async function send(method: string, path: string, options: { query?: Query; body?: unknown; token?: string }): Promise<Response> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {}))
    if (value !== undefined && value !== '') url.searchParams.set(name, value);
  const token = options.token ?? session.token() ?? '';
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The user service cannot be reached. Check your connection and try again.');
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { messages?: string | Record<string, string[]> };
    const reason = response.headers.get('x-refusal-reason') ?? undefined;
    throw new ApiError(response.status, body.messages ?? `The service answered ${response.status}.`, reason);
  }
  return response;
}

async function call<T>(method: string, path: string, options: { query?: Query; body?: unknown; token?: string } = {}): Promise<T> {
  const response = await send(method, path, options);
  return (await response.json()) as T;
}

/** A CSV export (`?format=csv`, every page) as text. */
async function csv(path: string, query: Query = {}): Promise<string> {
  return (await send('GET', path, { query: { ...query, format: 'csv' } })).text();
}

export interface AuditFilters {
  accountId?: string;
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
}

export const api = {
  /** Who the token is: its name and role (also whether it is accepted at all). */
  session: (token?: string) => call<AdminSession>('GET', '/admin/v1/session', token === undefined ? {} : { token }),
  products: () => call<{ data: Product[] }>('GET', '/admin/v1/products'),
  search: (query: Query) => call<Page<AccountItem>>('GET', '/admin/v1/accounts', { query }),
  create: (body: { email: string; credits: Record<string, number> }) =>
    call<{ id: number; email: string; apiKey: string; createdAt: string }>('POST', '/admin/v1/accounts', { body }),
  account: (id: number) => call<AccountDetails>('GET', `/admin/v1/accounts/${id}`),
  ledger: (id: number, cursor?: string) => call<Page<LedgerRow>>('GET', `/admin/v1/accounts/${id}/ledger`, { query: { cursor } }),
  ledgerCsv: (id: number) => csv(`/admin/v1/accounts/${id}/ledger`),
  usage: (id: number) => call<{ data: DailyUsage[] }>('GET', `/admin/v1/accounts/${id}/usage`, { query: { days: '30' } }),
  credits: (id: number, body: { productId: number; amount: number; reason: string }) =>
    call<{ productId: number; credits: number }>('POST', `/admin/v1/accounts/${id}/credits`, { body }),
  patch: (id: number, body: { email?: string; disabled?: boolean }) => call<Account>('PATCH', `/admin/v1/accounts/${id}`, { body }),
  rotate: (id: number) => call<{ apiKey: string }>('POST', `/admin/v1/accounts/${id}/api-key`),
  audit: (filters: AuditFilters, cursor?: string) => call<Page<AuditRow>>('GET', '/admin/v1/audit', { query: { ...filters, cursor } }),
  auditCsv: (filters: AuditFilters) => csv('/admin/v1/audit', { ...filters }),
};
