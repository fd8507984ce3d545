/** The user service's admin API (CONTRACT §7), called from the console with the operator's admin token. */

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

export interface AccountDetails extends Account {
  balances: Array<{ product_id: number; product: { id: number; name: string }; credits: number }>;
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

/** An answer other than 2xx: the status and the contract's `messages` (a sentence or per-field lists). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string | Record<string, string[]>,
  ) {
    super(typeof messages === 'string' ? messages : Object.values(messages).flat().join(' '));
  }
}

type Query = Record<string, string | undefined>;

async function call<T>(method: string, path: string, options: { query?: Query; body?: unknown; token?: string } = {}): Promise<T> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {}))
    if (value !== undefined && value !== '') url.searchParams.set(name, value);
  const token = options.token ?? session.token() ?? '';
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
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
  const body = (await response.json().catch(() => ({}))) as { messages?: string | Record<string, string[]> };
  if (!response.ok) throw new ApiError(response.status, body.messages ?? `The service answered ${response.status}.`);
  return body as T;
}

export const api = {
  /** Whether the token is accepted (a cheap read of one audit row). */
  check: (token: string) => call<Page<AuditRow>>('GET', '/admin/v1/audit', { query: { limit: '1' }, token }),
  search: (query: Query) => call<Page<Account>>('GET', '/admin/v1/accounts', { query }),
  account: (id: number) => call<AccountDetails>('GET', `/admin/v1/accounts/${id}`),
  ledger: (id: number, cursor?: string) => call<Page<LedgerRow>>('GET', `/admin/v1/accounts/${id}/ledger`, { query: { cursor } }),
  usage: (id: number) => call<{ data: DailyUsage[] }>('GET', `/admin/v1/accounts/${id}/usage`, { query: { days: '30' } }),
  credits: (id: number, body: { productId: number; amount: number; reason: string }) =>
    call<{ productId: number; credits: number }>('POST', `/admin/v1/accounts/${id}/credits`, { body }),
  patch: (id: number, body: { email?: string; disabled?: boolean }) => call<Account>('PATCH', `/admin/v1/accounts/${id}`, { body }),
  rotate: (id: number) => call<{ apiKey: string }>('POST', `/admin/v1/accounts/${id}/api-key`),
  audit: (accountId?: number, cursor?: string) =>
    call<Page<AuditRow>>('GET', '/admin/v1/audit', {
      query: { accountId: accountId === undefined ? undefined : String(accountId), cursor },
    }),
};
