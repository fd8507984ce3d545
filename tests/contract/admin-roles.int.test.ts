/**
 * CONTRACT §7 (roles) and §2 (refusal reasons): an `ADMIN_TOKENS` entry `name:role=token`; a
 * `support` token reads every admin GET of the user and categorization services and writes
 * nothing (403, `read_only_admin`); an `admin` token does all. The write routes are walked from
 * the services' declarations, so a write route declared later is covered without an edit here.
 */
import { mountedPaths, type RouteDeclaration } from '@platform/kernel';
import { uniqueId } from '@platform/testing';
import { ADMIN_TOKEN, OPS_TOKEN, SUPPORT_TOKEN, bearer, codeMessages, expectBody, usePlatform, type Category, type Reply } from './support';
import { DECLARED_ROUTES } from './support/declared-endpoints';

const { send, admin } = usePlatform({ categorization: true });

type AdminService = 'user' | 'categorization';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
interface AdminEndpoint {
  service: AdminService;
  method: Method;
  path: string;
}

const READ_ONLY = codeMessages(403, 'This admin token may only read.');

function adminEndpoints(service: AdminService, route: RouteDeclaration): AdminEndpoint[] {
  return mountedPaths(route)
    .filter((path) => path.startsWith('/admin/v1/'))
    .flatMap((path) => route.methods.map((method) => ({ service, method: method.toUpperCase() as Method, path })));
}

const ENDPOINTS: AdminEndpoint[] = (['user', 'categorization'] as const).flatMap((service) =>
  DECLARED_ROUTES[service].flatMap((route) => adminEndpoints(service, route)),
);
const WRITES = ENDPOINTS.filter((endpoint) => endpoint.method !== 'GET');
const READS = ENDPOINTS.filter((endpoint) => endpoint.method === 'GET');

const call = (endpoint: AdminEndpoint, id: string, token: string, json?: unknown): Promise<Reply> =>
  send(endpoint.service, endpoint.path.replace('{id}', id), {
    method: endpoint.method,
    headers: bearer(token),
    ...(json === undefined ? {} : { json }),
  });

let accountId: number;
let categoryId: string;

beforeAll(async () => {
  const account = await admin('POST', '/admin/v1/accounts', { email: `${uniqueId('roles')}@example.test`, credits: { 1: 100 } });
  accountId = (account.json() as { id: number }).id;
  categoryId = ((await admin('POST', '/admin/v1/categories', { name: `Roles ${uniqueId()}`, parent: null })).json() as Category).id;
});

const idFor = (endpoint: AdminEndpoint): string => (endpoint.service === 'user' ? String(accountId) : categoryId);

describe('§7 roles: a support token', () => {
  it('when the declarations are walked, then both services have admin write routes to refuse', () => {
    expect(new Set(WRITES.map((endpoint) => endpoint.service))).toEqual(new Set(['user', 'categorization']));
  });

  it.each(WRITES.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint] as const))(
    'when it calls %s, then 403 "may only read" with X-Refusal-Reason read_only_admin',
    async (_name, endpoint) => {
      const reply = await call(endpoint, idFor(endpoint), SUPPORT_TOKEN, { email: `${uniqueId('x')}@example.test`, disabled: true });
      expectBody(reply, 403, READ_ONLY);
      expect(reply.header('x-refusal-reason')).toBe('read_only_admin');
      expect(reply.header('www-authenticate')).toBeNull();
    },
  );

  it.each(READS.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint] as const))(
    'when it calls %s, then 200',
    async (_name, endpoint) => {
      expect((await call(endpoint, idFor(endpoint), SUPPORT_TOKEN)).status).toBe(200);
    },
  );

  it('when its writes were refused, then nothing changed: the account, its key, its credits, the category and the audit log', async () => {
    const before = (await admin('GET', `/admin/v1/accounts/${accountId}`)).text;
    for (const endpoint of WRITES) await call(endpoint, idFor(endpoint), SUPPORT_TOKEN, { productId: 1, amount: 5, disabled: true });
    expect((await admin('GET', `/admin/v1/accounts/${accountId}`)).text).toBe(before);
    const categories = (await send('categorization', '/api/v2/categories')).json() as Category[];
    expect(categories.some((category) => category.id === categoryId)).toBe(true);
    const audit = (await admin('GET', '/admin/v1/audit', undefined, ADMIN_TOKEN)).json() as { data: Array<{ actor: string }> };
    expect(audit.data.filter((entry) => entry.actor === 'support')).toEqual([]);
  });
});

describe('§7 roles: an admin token named in ADMIN_TOKENS', () => {
  it('when it writes on both services, then the writes succeed under its name', async () => {
    const reply = await send('user', `/admin/v1/accounts/${accountId}/credits`, {
      headers: bearer(OPS_TOKEN),
      json: { productId: 1, amount: 7 },
    });
    expectBody(reply, 200, { productId: 1, credits: 107 });
    const created = await admin('POST', '/admin/v1/categories', { name: `Ops ${uniqueId()}`, parent: null }, OPS_TOKEN);
    expect(created.status).toBe(201);
    expect((await admin('DELETE', `/admin/v1/categories/${(created.json() as Category).id}`, undefined, OPS_TOKEN)).status).toBe(204);
    const audit = (await admin('GET', `/admin/v1/audit?accountId=${accountId}`)).json() as {
      data: Array<{ actor: string; action: string }>;
    };
    expect(audit.data[0]).toMatchObject({ actor: 'ops' });
  });
});
