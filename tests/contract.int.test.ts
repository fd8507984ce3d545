/**
 * Black-box conformance of the running services to `../shared/CONTRACT.md` §2, §3, §4.1–4.5,
 * §6 (notification settings), §7, §8 and §9, over HTTP, in JSON and in XML. Every expectation
 * is written from the contract (oracles in `contract-harness.ts`), never read from the code.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import { createHttpApp, Health } from '@platform/common';
import { createProductGateway } from '@platform/product-gateway';
import { eventually, silentLogger, uniqueId, type TestAccount } from '@platform/testing';
import {
  ACCESS_RESTRICTED,
  ADMIN_TOKEN,
  API_KEY_PATTERN,
  JSON_TYPE,
  LOW_LIMIT,
  SERVICE_JWT_SECRET,
  XML_DECLARATION,
  XML_TYPE,
  abcOrder,
  badOutputFormat,
  balanceItem,
  balanceItems,
  basic,
  bearer,
  call,
  codeMessages,
  expectBody,
  iabOrder,
  iabRowsOfTsv,
  invalidField,
  metricSample,
  nowSeconds,
  requiredField,
  seedBearer,
  serviceJwt,
  startPlatform,
  unauthorized,
  xmlOf,
  type Category,
  type Format,
  type HttpRequest,
  type KeyEncoding,
  type Platform,
  type Reply,
} from './contract-harness';

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform();
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 60_000);

type ServiceName = 'auth' | 'user' | 'categorization' | 'notifier';
const send = (service: ServiceName, path: string, request: HttpRequest = {}): Promise<Reply> => call(platform[service], path, request);

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A well-shaped API key that no account has. */
const unknownKey = (): string => `at_${Array.from({ length: 29 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`;
const GRANT = { grantType: 'access_token' };
const KEY_GENERATION_422 = codeMessages(422, 'Input correct request parameters.');
const KEY_NOT_ACTIVE = codeMessages(400, 'The API key you entered does not exist or is no longer active.');
const TOO_LARGE = codeMessages(413, 'Request body too large.');
const MALFORMED = codeMessages(400, 'Malformed request body.');
const TOO_MANY = codeMessages(429, 'Too Many Requests. Try your call again later.');
const UNAVAILABLE = codeMessages(503, 'Service temporarily unavailable. Try your call again later.');
const NOT_FOUND = codeMessages(404, 'Not found.');
const BODY_LIMIT = 16 * 1024;
const FORMATS: Format[] = ['JSON', 'XML'];
const DEFAULT_SETTINGS = { lowBalanceAlert: { enabled: true, threshold: 10 }, zeroBalanceAlert: { enabled: true } };
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const freshKey = async (credits: Record<number, number> = { 1: 50 }): Promise<string> => (await platform.account(credits)).apiKey;
const balanceOf = (apiKey: string, query: Record<string, string> = {}): Promise<Reply> =>
  send('user', '/user-service/account-balance', { query: { apiKey, ...query } });
const rotate = (currentApiKey: string, query: Record<string, string | readonly string[]> = {}): Promise<Reply> =>
  send('user', '/user-service/api-key/generate', { query: { currentApiKey, ...query } });
const introspect = (token: string, headers: Record<string, string> = bearer(ADMIN_TOKEN)): Promise<Reply> =>
  send('auth', '/oauth/introspect', { headers, form: { token } });
const revoke = (token: string, headers: Record<string, string>): Promise<Reply> =>
  send('auth', '/oauth/revoke', { headers, form: { token } });
const admin = (method: 'GET' | 'POST' | 'DELETE', path: string, json?: unknown, token = ADMIN_TOKEN): Promise<Reply> =>
  call(platform[path.startsWith('/admin/v1/categories') ? 'categorization' : 'user'], path, {
    method,
    headers: bearer(token),
    ...(json === undefined ? {} : { json }),
  });
const usage = (body: unknown, jwt: string = serviceJwt()): Promise<Reply> =>
  send('user', '/internal/v1/usage', { headers: bearer(jwt), json: body });
const withFormat = (format: Format): Record<string, string> => (format === 'XML' ? { outputFormat: 'XML' } : {});
const isActive = async (token: string): Promise<unknown> => (await introspect(token)).json();
/** A JSON body of exactly `bytes` bytes: the document followed by spaces (JSON whitespace). */
const paddedJson = (document: unknown, bytes: number): string => JSON.stringify(document).padEnd(bytes, ' ');
const oversizeJson = (): string => JSON.stringify({ padding: 'x'.repeat(BODY_LIMIT) });

/** The RFC 6749 §5.2 error body: `error` as given, nothing beyond the RFC's members. */
function expectOAuthError(reply: Reply, status: number, error: string): void {
  expect({ status: reply.status, type: reply.type }).toEqual({ status, type: JSON_TYPE });
  const body = reply.json() as Record<string, unknown>;
  expect(body.error).toBe(error);
  expect(Object.keys(body).every((key) => ['error', 'error_description', 'error_uri'].includes(key))).toBe(true);
}

function expectRetryAfter(reply: Reply): void {
  expect(reply.header('retry-after')).toMatch(/^[1-9][0-9]*$/);
}

// =============================================================================================
// §2 Common rules, on every public endpoint
// =============================================================================================

interface PublicEndpoint {
  name: string;
  service: 'auth' | 'user' | 'categorization';
  method: 'GET' | 'POST';
  path: string;
  /** A valid request, for a fresh account where one is needed. */
  valid(): Promise<HttpRequest>;
  /** The 422 for a bad outputFormat. */
  badFormat: ReturnType<typeof codeMessages>;
}

const balanceEndpoints = (['/user-service/account-balance', '/service/account-balance'] as const).flatMap((path): PublicEndpoint[] => [
  {
    name: `GET ${path}`,
    service: 'user',
    method: 'GET',
    path,
    valid: async () => ({ query: { apiKey: await freshKey() } }),
    badFormat: badOutputFormat,
  },
  {
    name: `POST ${path}`,
    service: 'user',
    method: 'POST',
    path,
    valid: async () => ({ json: { apiKey: await freshKey() } }),
    badFormat: badOutputFormat,
  },
]);

const PUBLIC_ENDPOINTS: PublicEndpoint[] = [
  {
    name: 'POST /oauth/token',
    service: 'auth',
    method: 'POST',
    path: '/oauth/token',
    valid: async () => ({ headers: seedBearer(await freshKey()), json: GRANT }),
    badFormat: badOutputFormat,
  },
  ...balanceEndpoints,
  {
    name: 'GET /user-service/api-key/generate',
    service: 'user',
    method: 'GET',
    path: '/user-service/api-key/generate',
    valid: async () => ({ query: { currentApiKey: await freshKey() } }),
    badFormat: KEY_GENERATION_422,
  },
  {
    name: 'GET /api/v2/categories',
    service: 'categorization',
    method: 'GET',
    path: '/api/v2/categories',
    valid: () => Promise.resolve({}),
    badFormat: badOutputFormat,
  },
  {
    name: 'GET /user-service/notification-settings',
    service: 'user',
    method: 'GET',
    path: '/user-service/notification-settings',
    valid: async () => ({ query: { apiKey: await freshKey() } }),
    badFormat: badOutputFormat,
  },
  {
    name: 'POST /user-service/notification-settings',
    service: 'user',
    method: 'POST',
    path: '/user-service/notification-settings',
    valid: async () => ({ query: { apiKey: await freshKey() }, json: { lowBalanceAlert: { threshold: 12 } } }),
    badFormat: badOutputFormat,
  },
];

type ParamValue = string | null | readonly string[] | Record<string, string>;

/** The request with one more parameter: in the JSON body on POST, in the query string on GET. */
function withParam(endpoint: PublicEndpoint, request: HttpRequest, name: string, value: ParamValue): HttpRequest {
  if (endpoint.method === 'POST') return { ...request, json: { ...(request.json as Record<string, unknown>), [name]: value } };
  const query = { ...(request.query as Record<string, string | readonly string[]>) };
  if (typeof value === 'string' || Array.isArray(value)) query[name] = value as string | readonly string[];
  else if (value === null) query[name] = '';
  else for (const [key, member] of Object.entries(value)) query[`${name}[${key}]`] = member;
  return { ...request, query };
}

const sendTo = (endpoint: PublicEndpoint, request: HttpRequest): Promise<Reply> =>
  send(endpoint.service, endpoint.path, { method: endpoint.method, ...request });

describe.each(PUBLIC_ENDPOINTS)('§2 common rules on $name', (endpoint) => {
  const sendWith = async (name: string, value: ParamValue): Promise<Reply> =>
    sendTo(endpoint, withParam(endpoint, await endpoint.valid(), name, value));

  it('when outputFormat is absent, then 200 in JSON with Content-Type application/json; charset=utf-8', async () => {
    const reply = await sendTo(endpoint, await endpoint.valid());
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    expect(() => reply.json()).not.toThrow();
  });

  it.each(['XML', 'xml', 'Xml'])(
    'when outputFormat is %p (case-insensitive), then 200 in XML with the declaration and the <xml> root',
    async (value) => {
      const reply = await sendWith('outputFormat', value);
      expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: XML_TYPE });
      expect(reply.text.startsWith(`${XML_DECLARATION}<xml`)).toBe(true);
      expect(reply.text.endsWith('</xml>') || reply.text.endsWith('<xml/>')).toBe(true);
    },
  );

  it.each(['JSON', 'json', 'Json'])('when outputFormat is %p (case-insensitive), then 200 in JSON', async (value) => {
    const reply = await sendWith('outputFormat', value);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
  });

  it('when outputFormat is an empty string, then it counts as not given: 200 in JSON', async () => {
    const reply = await sendWith('outputFormat', endpoint.method === 'POST' ? '' : null);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
  });

  it.each(['HTML', 'XMLX', ' xml', 'JSON,XML'])(
    'when outputFormat is %p, then 422 with the endpoint’s outputFormat message, in JSON',
    async (value) => {
      expectBody(await sendWith('outputFormat', value), 422, endpoint.badFormat);
    },
  );

  it.each<[string, ParamValue]>([
    ['repeated (an array)', ['XML', 'JSON']],
    ['structured (an object)', { a: 'XML' }],
  ])('when outputFormat arrives %s, then it is an invalid value: 422 in JSON, never a 5xx', async (_label, value) => {
    expectBody(await sendWith('outputFormat', value), 422, endpoint.badFormat);
  });

  it('when unknown query parameters are sent, then they are ignored: 200', async () => {
    const request = await endpoint.valid();
    const reply = await sendTo(endpoint, {
      ...request,
      query: { ...(request.query as Record<string, string>), utm_source: 'newsletter', debug: 'true', 'x[y]': 'z' },
    });
    expect(reply.status).toBe(200);
  });

  it('when X-Request-Id is sent, then the response echoes it', async () => {
    const request = await endpoint.valid();
    const reply = await sendTo(endpoint, { ...request, headers: { ...request.headers, 'X-Request-Id': 'contract-4711-abc' } });
    expect(reply.header('x-request-id')).toBe('contract-4711-abc');
  });

  it('when no X-Request-Id is sent, then the response carries a generated one, different per request', async () => {
    const [first, second] = [await sendTo(endpoint, await endpoint.valid()), await sendTo(endpoint, await endpoint.valid())];
    expect(first.header('x-request-id')).toMatch(/\S/);
    expect(second.header('x-request-id')).toMatch(/\S/);
    expect(first.header('x-request-id')).not.toBe(second.header('x-request-id'));
  });
});

describe.each(PUBLIC_ENDPOINTS.filter((endpoint) => endpoint.method === 'POST'))('§2/§9 JSON null on $name', (endpoint) => {
  it('when outputFormat is JSON null, then it counts as not given: 200 in JSON', async () => {
    const reply = await sendTo(endpoint, withParam(endpoint, await endpoint.valid(), 'outputFormat', null));
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
  });
});

interface BodyEndpoint {
  name: string;
  service: 'auth' | 'user';
  path: string;
  /** A valid request for the key; its body is JSON. */
  valid(apiKey: string): HttpRequest;
  /** The same request with an invalid parameter (422 with a good credential). */
  invalid(apiKey: string): HttpRequest;
}

const BODY_ENDPOINTS: BodyEndpoint[] = [
  {
    name: 'POST /oauth/token',
    service: 'auth',
    path: '/oauth/token',
    valid: (apiKey) => ({ headers: seedBearer(apiKey), json: GRANT }),
    invalid: (apiKey) => ({ headers: seedBearer(apiKey), json: { grantType: 'password' } }),
  },
  ...(['/user-service/account-balance', '/service/account-balance'] as const).map((path): BodyEndpoint => ({
    name: `POST ${path}`,
    service: 'user',
    path,
    valid: (apiKey) => ({ json: { apiKey } }),
    invalid: (apiKey) => ({ json: { apiKey, productId: 'abc' } }),
  })),
  {
    name: 'POST /user-service/notification-settings',
    service: 'user',
    path: '/user-service/notification-settings',
    valid: (apiKey) => ({ query: { apiKey }, json: { lowBalanceAlert: { threshold: 12 } } }),
    invalid: (apiKey) => ({ query: { apiKey }, json: { lowBalanceAlert: { threshold: null } } }),
  },
];

describe.each(BODY_ENDPOINTS)(
  '§2 order of checks on $name: size and syntax (413, 400), then credential (401), then parameters (422)',
  (endpoint) => {
    const post = (request: HttpRequest): Promise<Reply> => send(endpoint.service, endpoint.path, { method: 'POST', ...request });
    const rawJson = (request: HttpRequest, text: string): HttpRequest => {
      const { json: _json, ...rest } = request;
      return { ...rest, raw: { text, type: 'application/json' } };
    };

    it('when the body is over 16 KiB and no credential is sent, then 413 "Request body too large." (before the 401), with X-Request-Id', async () => {
      const reply = await post({ raw: { text: oversizeJson(), type: 'application/json' } });
      expectBody(reply, 413, TOO_LARGE);
      expect(reply.header('x-request-id')).toMatch(/\S/);
    });

    it('when the body is exactly 16 KiB, then it is not too large: 200', async () => {
      const request = endpoint.valid(await freshKey());
      const reply = await post(rawJson(request, paddedJson(request.json, BODY_LIMIT)));
      expect(reply.status).toBe(200);
    });

    it('when the body is over 16 KiB with a valid credential, then 413', async () => {
      const request = endpoint.valid(await freshKey());
      expectBody(await post(rawJson(request, paddedJson(request.json, BODY_LIMIT + 1))), 413, TOO_LARGE);
    });

    it('when the JSON is malformed and no credential is sent, then 400 "Malformed request body." (before the 401), with X-Request-Id', async () => {
      const reply = await post({ raw: { text: '{"grantType": "access_token",', type: 'application/json' } });
      expectBody(reply, 400, MALFORMED);
      expect(reply.header('x-request-id')).toMatch(/\S/);
    });

    it('when the JSON is malformed and the credential is valid, then 400', async () => {
      expectBody(await post(rawJson(endpoint.valid(await freshKey()), '{"a":')), 400, MALFORMED);
    });

    it('when the credential is unknown and a parameter is invalid, then 401 (the credential is checked before the parameters)', async () => {
      expectBody(await post(endpoint.invalid(unknownKey())), 401, unauthorized);
    });

    it('when the credential is valid and the same parameter is invalid, then 422', async () => {
      const reply = await post(endpoint.invalid(await freshKey()));
      expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    });
  },
);

describe('§2 order of checks on GET endpoints and the RFC endpoints', () => {
  it.each<[string, ServiceName, string, Record<string, string>]>([
    ['GET /user-service/account-balance', 'user', '/user-service/account-balance', { productId: 'abc', outputFormat: 'HTML' }],
    ['GET /service/account-balance', 'user', '/service/account-balance', { productId: 'abc' }],
    ['GET /user-service/notification-settings', 'user', '/user-service/notification-settings', { outputFormat: 'HTML' }],
    ['GET /api/v2/categories', 'categorization', '/api/v2/categories', { order: 'XYZ', outputFormat: 'HTML' }],
  ])('when %s gets an unknown key and invalid parameters, then 401 before 422', async (_name, service, path, query) => {
    expectBody(await send(service, path, { query: { apiKey: unknownKey(), ...query } }), 401, unauthorized);
  });

  it.each(['/oauth/introspect', '/oauth/revoke'])('when %s gets a form body over 16 KiB without a credential, then 413', async (path) => {
    const reply = await send('auth', path, { form: { token: 'x'.repeat(BODY_LIMIT + 1) } });
    expect(reply.status).toBe(413);
  });
});

describe('§2 where parameters come from: query string, JSON body, form body; on POST the body wins', () => {
  it.each<[string, (apiKey: string) => HttpRequest]>([
    ['the query string', (apiKey) => ({ method: 'POST', query: { apiKey } })],
    ['a JSON body', (apiKey) => ({ json: { apiKey } })],
    ['a form body', (apiKey) => ({ form: { apiKey } })],
  ])('when POST account-balance gets apiKey in %s, then 200', async (_where, request) => {
    expect((await send('user', '/user-service/account-balance', request(await freshKey()))).status).toBe(200);
  });

  it.each<[string, 'json' | 'form']>([
    ['JSON', 'json'],
    ['form', 'form'],
  ])(
    'when POST account-balance has a wrong apiKey in the query and the right one in a %s body, then the body wins: 200',
    async (_label, kind) => {
      const apiKey = await freshKey();
      const body = kind === 'json' ? { json: { apiKey } } : { form: { apiKey } };
      const reply = await send('user', '/user-service/account-balance', { query: { apiKey: unknownKey() }, ...body });
      expect(reply.status).toBe(200);
    },
  );

  it('when POST account-balance has the right apiKey in the query and a wrong one in the body, then the body wins: 401', async () => {
    const reply = await send('user', '/user-service/account-balance', {
      query: { apiKey: await freshKey() },
      json: { apiKey: unknownKey() },
    });
    expectBody(reply, 401, unauthorized);
  });

  it('when POST account-balance has outputFormat=XML in the query and JSON in the body, then JSON', async () => {
    const reply = await send('user', '/user-service/account-balance', {
      query: { outputFormat: 'XML' },
      json: { apiKey: await freshKey(), outputFormat: 'JSON' },
    });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
  });

  it('when the token endpoint has expiresIn=1800 and grantType=bad in the query and good values in the JSON body, then the body wins', async () => {
    const reply = await send('auth', '/oauth/token', {
      headers: seedBearer(await freshKey()),
      query: { expiresIn: '1800', grantType: 'bad' },
      json: { grantType: 'access_token', expiresIn: 7200 },
    });
    expect({ status: reply.status, expiresIn: (reply.json() as { expiresIn?: unknown }).expiresIn }).toEqual({
      status: 200,
      expiresIn: 7200,
    });
  });

  it.each<[string, HttpRequest]>([
    ['the query string', { method: 'POST', query: { grantType: 'access_token', expiresIn: '7200' } }],
    ['a form body', { form: { grantType: 'access_token', expiresIn: '7200' } }],
  ])('when the token endpoint gets grantType and expiresIn in %s, then 200 with expiresIn 7200', async (_where, request) => {
    const reply = await send('auth', '/oauth/token', { ...request, headers: seedBearer(await freshKey()) });
    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(/^\{"accessToken":"[^"]+","expiresIn":7200\}$/);
  });
});

describe('§2 headers: WWW-Authenticate, Cache-Control, X-Request-Id', () => {
  const BEARER_REALM = (realm: string): string => `Bearer realm="${realm}", error="invalid_token"`;
  const BASIC_REALM = 'Basic realm="auth"';
  const garbage = 'tk_this-is-not-a-valid-token';

  it.each<[string, () => Promise<Reply>, string]>([
    [
      'the token endpoint, seed Bearer of an unknown key',
      () => send('auth', '/oauth/token', { headers: seedBearer(unknownKey()), json: GRANT }),
      BEARER_REALM('auth'),
    ],
    [
      'the token endpoint, seed flow with Basic',
      () => send('auth', '/oauth/token', { headers: basic('1', unknownKey()), json: GRANT }),
      BASIC_REALM,
    ],
    [
      'the token endpoint, client credentials with Basic',
      () => send('auth', '/oauth/token', { headers: basic('1', unknownKey()), form: { grant_type: 'client_credentials' } }),
      BASIC_REALM,
    ],
    ['introspection, wrong Bearer', () => introspect(garbage, bearer('wrong-admin-token')), BEARER_REALM('auth')],
    ['introspection, wrong Basic', () => introspect(garbage, basic('1', unknownKey())), BASIC_REALM],
    ['revocation, seed Bearer of an unknown key', () => revoke(garbage, seedBearer(unknownKey())), BEARER_REALM('auth')],
    ['revocation, wrong Basic', () => revoke(garbage, basic('1', unknownKey())), BASIC_REALM],
    [
      'GET account-balance, bad Bearer token',
      () => send('user', '/user-service/account-balance', { headers: bearer(garbage) }),
      BEARER_REALM('user'),
    ],
    [
      'POST legacy account-balance, bad Bearer token',
      () => send('user', '/service/account-balance', { method: 'POST', headers: bearer(garbage) }),
      BEARER_REALM('user'),
    ],
    ['GET account-balance, Basic', () => send('user', '/user-service/account-balance', { headers: basic('1', unknownKey()) }), BASIC_REALM],
    [
      'GET notification-settings, bad Bearer token',
      () => send('user', '/user-service/notification-settings', { headers: bearer(garbage) }),
      BEARER_REALM('user'),
    ],
    [
      'POST notification-settings, bad Bearer token',
      () => send('user', '/user-service/notification-settings', { headers: bearer(garbage), json: { lowBalanceAlert: { threshold: 5 } } }),
      BEARER_REALM('user'),
    ],
    [
      'GET categories, bad Bearer token',
      () => send('categorization', '/api/v2/categories', { headers: bearer(garbage) }),
      BEARER_REALM('categorization'),
    ],
    ['GET categories, Basic', () => send('categorization', '/api/v2/categories', { headers: basic('1', unknownKey()) }), BASIC_REALM],
  ])('when a 401 answers %s, then WWW-Authenticate is exactly the contract’s challenge', async (_case, request, challenge) => {
    const reply = await request();
    expect({ status: reply.status, challenge: reply.header('www-authenticate') }).toEqual({ status: 401, challenge });
  });

  it.each<[string, () => Promise<Reply>]>([
    [
      'POST /admin/v1/accounts with a wrong admin token',
      () => admin('POST', '/admin/v1/accounts', { email: 'a@b.c' }, 'wrong-admin-token'),
    ],
    ['GET /admin/v1/accounts/1 without a token', () => send('user', '/admin/v1/accounts/1')],
    [
      'POST /admin/v1/accounts/1/credits with Basic',
      () => send('user', '/admin/v1/accounts/1/credits', { headers: basic('a', 'b'), json: { productId: 1, amount: 1 } }),
    ],
    [
      'POST /admin/v1/categories with a wrong admin token',
      () => admin('POST', '/admin/v1/categories', { name: 'x', parent: null }, 'wrong-admin-token'),
    ],
    [
      'DELETE /admin/v1/categories/CUS-1 with a wrong admin token',
      () => admin('DELETE', '/admin/v1/categories/CUS-1', undefined, 'wrong-admin-token'),
    ],
    [
      'POST /internal/v1/usage with a bad service JWT',
      () => usage({ credential: unknownKey(), productId: 1, requestId: uniqueId() }, 'not.a.jwt'),
    ],
    [
      'POST /internal/v1/usage with a bad customer credential',
      () => usage({ credential: unknownKey(), productId: 1, requestId: uniqueId() }),
    ],
  ])('when a 401 answers %s, then there is no WWW-Authenticate (admin and internal APIs)', async (_case, request) => {
    const reply = await request();
    expect({ status: reply.status, challenge: reply.header('www-authenticate'), type: reply.type }).toEqual({
      status: 401,
      challenge: null,
      type: JSON_TYPE,
    });
  });

  it.each<[string, () => Promise<Reply>]>([
    ['a seed-flow token in JSON', async () => send('auth', '/oauth/token', { headers: seedBearer(await freshKey()), json: GRANT })],
    [
      'a seed-flow token in XML',
      async () => send('auth', '/oauth/token', { headers: seedBearer(await freshKey()), json: { ...GRANT, outputFormat: 'XML' } }),
    ],
    [
      'a client-credentials token',
      async () => {
        const account = await platform.account({ 1: 5 });
        return send('auth', '/oauth/token', {
          headers: basic(String(account.id), account.apiKey),
          form: { grant_type: 'client_credentials' },
        });
      },
    ],
    ['a generated API key in JSON', async () => rotate(await freshKey())],
    ['a generated API key in XML', async () => rotate(await freshKey(), { outputFormat: 'XML' })],
    ['a created account’s API key', () => admin('POST', '/admin/v1/accounts', { email: `${uniqueId('nostore')}@example.test` })],
  ])('when the response carries %s, then Cache-Control: no-store', async (_case, request) => {
    const reply = await request();
    expect(reply.status).toBeLessThan(300);
    expect(reply.header('cache-control')).toBe('no-store');
  });

  it.each<[string, ServiceName, string]>([
    ['an unknown path on auth', 'auth', '/no/such/path'],
    ['an unknown path on user', 'user', '/no/such/path'],
    ['an unknown path on categorization', 'categorization', '/no/such/path'],
    ['an admin 401 on user', 'user', '/admin/v1/accounts/1'],
    ['readiness on notifier', 'notifier', '/health/ready'],
  ])('when the request id is sent to %s, then it is echoed on that response too', async (_case, service, path) => {
    expect((await send(service, path, { headers: { 'X-Request-Id': 'echo-me-42' } })).header('x-request-id')).toBe('echo-me-42');
  });
});

// =============================================================================================
// §3 Credentials
// =============================================================================================

describe('§3 credentials', () => {
  it('when a token is issued, then it is opaque, never shaped like an API key, at least 256 bits long, and new every time', async () => {
    const apiKey = await freshKey();
    const tokens = [await platform.token(apiKey), await platform.token(apiKey), await platform.token(apiKey)];
    for (const token of tokens) {
      expect(token).not.toMatch(API_KEY_PATTERN);
      expect(token.length).toBeGreaterThanOrEqual(43);
    }
    expect(new Set(tokens).size).toBe(3);
  });

  it.each<[string, ServiceName, string, (token: string) => HttpRequest]>([
    ['account-balance, token as apiKey', 'user', '/user-service/account-balance', (token) => ({ query: { apiKey: token } })],
    ['account-balance, token as Bearer', 'user', '/user-service/account-balance', (token) => ({ headers: bearer(token) })],
    [
      'legacy account-balance, token as apiKey in a form body',
      'user',
      '/service/account-balance',
      (token) => ({ form: { apiKey: token } }),
    ],
    ['notification-settings, token as apiKey', 'user', '/user-service/notification-settings', (token) => ({ query: { apiKey: token } })],
    ['notification-settings, token as Bearer', 'user', '/user-service/notification-settings', (token) => ({ headers: bearer(token) })],
    ['categories, token as apiKey', 'categorization', '/api/v2/categories', (token) => ({ query: { apiKey: token } })],
    ['categories, token as Bearer', 'categorization', '/api/v2/categories', (token) => ({ headers: bearer(token) })],
  ])('when %s, then the token is accepted where the key is: 200', async (_case, service, path, request) => {
    const token = await platform.token(await freshKey());
    expect((await send(service, path, request(token))).status).toBe(200);
  });

  it.each<[string, (token: string, account: TestAccount) => Record<string, string>]>([
    ['Bearer base64(token)', (token) => seedBearer(token)],
    ['Bearer token', (token) => bearer(token)],
  ])('when the token endpoint gets %s, then a token cannot mint tokens: 401', async (_case, headers) => {
    const account = await platform.account({ 1: 5 });
    const token = await platform.token(account.apiKey);
    expectBody(await send('auth', '/oauth/token', { headers: headers(token, account), json: GRANT }), 401, unauthorized);
  });

  it('when client credentials carry a token as the secret, then invalid_client 401', async () => {
    const account = await platform.account({ 1: 5 });
    const token = await platform.token(account.apiKey);
    expectOAuthError(
      await send('auth', '/oauth/token', { headers: basic(String(account.id), token), form: { grant_type: 'client_credentials' } }),
      401,
      'invalid_client',
    );
  });

  it('when the key is regenerated, then at once every earlier token is refused by every service, the old key is refused, and the new key works', async () => {
    const account = await platform.account({ 1: 50 });
    const before = [await platform.token(account.apiKey, 1800), await platform.token(account.apiKey, 10800)];
    const rotated = await rotate(account.apiKey);
    expect(rotated.status).toBe(200);
    const newKey = (rotated.json() as { apiKey: string }).apiKey;
    for (const token of before) {
      expectBody(await balanceOf(token), 401, unauthorized);
      expectBody(await send('user', '/user-service/notification-settings', { headers: bearer(token) }), 401, unauthorized);
      expectBody(await send('categorization', '/api/v2/categories', { query: { apiKey: token } }), 401, unauthorized);
      expect(await isActive(token)).toEqual({ active: false });
    }
    expectBody(await balanceOf(account.apiKey), 401, unauthorized);
    expectBody(await send('auth', '/oauth/token', { headers: seedBearer(account.apiKey), json: GRANT }), 401, unauthorized);
    expect((await balanceOf(newKey)).status).toBe(200);
    expect((await balanceOf(await platform.token(newKey))).status).toBe(200);
  });
});

// =============================================================================================
// §4.1 POST /oauth/token — the seed flow
// =============================================================================================

describe('§4.1 POST /oauth/token, seed flow', () => {
  const token = (request: HttpRequest): Promise<Reply> => send('auth', '/oauth/token', { method: 'POST', ...request });
  const tokenText = (expiresIn: number): RegExp => new RegExp(`^\\{"accessToken":"([^"]+)","expiresIn":${expiresIn}\\}$`);

  it.each([1800, 3600, 7200, 10800].flatMap((seconds) => [[seconds, seconds] as const, [String(seconds), seconds] as const]))(
    'when expiresIn is %p, then 200 {"accessToken","expiresIn"} echoing %p, JSON, no-store',
    async (expiresIn, granted) => {
      const reply = await token({ headers: seedBearer(await freshKey()), json: { ...GRANT, expiresIn } });
      expect({ status: reply.status, type: reply.type, cacheControl: reply.header('cache-control') }).toEqual({
        status: 200,
        type: JSON_TYPE,
        cacheControl: 'no-store',
      });
      expect(reply.text).toMatch(tokenText(granted));
    },
  );

  it.each<[string, Record<string, unknown>]>([
    ['absent', GRANT],
    ['JSON null', { ...GRANT, expiresIn: null }],
    ['an empty string', { ...GRANT, expiresIn: '' }],
  ])('when expiresIn is %s, then the default lifetime 3600', async (_case, json) => {
    expect((await token({ headers: seedBearer(await freshKey()), json })).text).toMatch(tokenText(3600));
  });

  it('when outputFormat is XML, then 200 <xml><accessToken>…</accessToken><expiresIn>…</expiresIn></xml>', async () => {
    const reply = await token({
      headers: seedBearer(await freshKey()),
      query: { outputFormat: 'xml' },
      json: { ...GRANT, expiresIn: 1800 },
    });
    expect({ status: reply.status, type: reply.type, cacheControl: reply.header('cache-control') }).toEqual({
      status: 200,
      type: XML_TYPE,
      cacheControl: 'no-store',
    });
    expect(reply.text).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?><xml><accessToken>[^<]+<\/accessToken><expiresIn>1800<\/expiresIn><\/xml>$/,
    );
  });

  describe('the Authorization header: standard or URL-safe Base64, padding optional, or the raw key', () => {
    let account: TestAccount;

    beforeAll(async () => {
      // A key whose Base64 holds `+` or `/`, so that the URL-safe spelling really differs.
      for (let attempt = 0; attempt < 40; attempt += 1) {
        account = await platform.account({ 1: 50 });
        if (/[+/]/.test(Buffer.from(account.apiKey).toString('base64'))) break;
      }
    });

    it.each<KeyEncoding>(['base64', 'base64 unpadded', 'base64url', 'base64url unpadded', 'raw'])(
      'when the key is sent as %s, then 200',
      async (encoding) => {
        const reply = await token({ headers: seedBearer(account.apiKey, encoding), json: GRANT });
        expect(reply.status).toBe(200);
        expect((await balanceOf((reply.json() as { accessToken: string }).accessToken)).status).toBe(200);
      },
    );
  });

  const UNAUTHENTICATED: Array<[string, () => Promise<Record<string, string>>]> = [
    ['there is no Authorization header', () => Promise.resolve({})],
    ['Authorization is "Bearer" alone', () => Promise.resolve({ Authorization: 'Bearer' })],
    ['Authorization is Bearer of garbled Base64', () => Promise.resolve(bearer('!!!%%%***'))],
    ['Authorization uses another scheme', async () => ({ Authorization: `Digest ${Buffer.from(await freshKey()).toString('base64')}` })],
    ['the key is unknown', () => Promise.resolve(seedBearer(unknownKey()))],
    [
      'the key was replaced (no longer active)',
      async () => {
        const apiKey = await freshKey();
        expect((await rotate(apiKey)).status).toBe(200);
        return seedBearer(apiKey);
      },
    ],
    ['every credit pool of the account is at 0', async () => seedBearer(await freshKey({ 1: 0, 14: 0, 7: 0 }))],
  ];

  it('when only some pools of the account are at 0, then a token is issued', async () => {
    expect((await token({ headers: seedBearer(await freshKey({ 1: 0, 7: 5 })), json: GRANT })).status).toBe(200);
  });

  it.each(UNAUTHENTICATED.flatMap(([label, headers]) => FORMATS.map((format) => [label, headers, format] as const)))(
    'when %s, then 401 with the contract’s sentence, in %s',
    async (_label, headers, format) => {
      expectBody(await token({ headers: await headers(), query: withFormat(format), json: GRANT }), 401, unauthorized, format);
    },
  );

  it('when the key is unknown and grantType is missing, then 401: authentication before validation', async () => {
    expectBody(await token({ headers: seedBearer(unknownKey()), json: {} }), 401, unauthorized);
  });

  const GRANT_REQUIRED = requiredField('grantType', 'grant type');
  const GRANT_INVALID = invalidField('grantType', 'grant type');
  const EXPIRES_INVALID = invalidField('expiresIn', 'expires in');
  const INVALID: Array<[string, Record<string, unknown>, ReturnType<typeof codeMessages>]> = [
    ['grantType is missing', {}, GRANT_REQUIRED],
    ['grantType is an empty string', { grantType: '' }, GRANT_REQUIRED],
    ['grantType is JSON null', { grantType: null }, GRANT_REQUIRED],
    ['grantType is client_credentials', { grantType: 'client_credentials' }, GRANT_INVALID],
    ['grantType is refresh_token', { grantType: 'refresh_token' }, GRANT_INVALID],
    ['grantType is an array', { grantType: ['access_token'] }, GRANT_INVALID],
    ['grantType is an object', { grantType: { value: 'access_token' } }, GRANT_INVALID],
    ['grantType is a number', { grantType: 1 }, GRANT_INVALID],
    ...[60, 0, 3601, -3600, 1800.5, '1800.0', ' 1800', '0x708', 'abc', [3600], { seconds: 3600 }, true].map(
      (expiresIn): [string, Record<string, unknown>, ReturnType<typeof codeMessages>] => [
        `expiresIn is ${JSON.stringify(expiresIn)}`,
        { ...GRANT, expiresIn },
        EXPIRES_INVALID,
      ],
    ),
  ];

  it.each(INVALID.flatMap(([label, json, body]) => FORMATS.map((format) => [label, json, body, format] as const)))(
    'when %s, then 422 with that field’s message, in %s',
    async (_label, json, body, format) => {
      expectBody(await token({ headers: seedBearer(await freshKey()), json: { ...json, ...withFormat(format) } }), 422, body, format);
    },
  );

  it('when grantType is missing and expiresIn is invalid, then both fields are reported together in one 422', async () => {
    const reply = await token({ headers: seedBearer(await freshKey()), json: { expiresIn: 60 } });
    expect({ status: reply.status, body: reply.json() }).toEqual({
      status: 422,
      body: {
        code: 422,
        messages: { grantType: ['The grant type field is required.'], expiresIn: ['The selected expires in is invalid.'] },
      },
    });
  });

  it('when grant_type arrives in a JSON body, then it is the seed flow: 422 grantType required', async () => {
    expectBody(await token({ headers: seedBearer(await freshKey()), json: { grant_type: 'client_credentials' } }), 422, GRANT_REQUIRED);
  });

  it('when several tokens are issued for one key, then all are valid at once', async () => {
    const apiKey = await freshKey();
    const tokens = await Promise.all([platform.token(apiKey), platform.token(apiKey, 1800), platform.token(apiKey, 10800)]);
    for (const issued of tokens) expect((await balanceOf(issued)).status).toBe(200);
  });
});

// =============================================================================================
// §4.1 POST /oauth/token — RFC 6749 client credentials
// =============================================================================================

describe('§4.1 POST /oauth/token, client credentials (RFC 6749 §4.4)', () => {
  const clientCredentials = (form: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> =>
    send('auth', '/oauth/token', { headers, form: { grant_type: 'client_credentials', ...form } });

  function expectIssued(reply: Reply, expiresIn: number): string {
    expect({ status: reply.status, type: reply.type, cacheControl: reply.header('cache-control') }).toEqual({
      status: 200,
      type: JSON_TYPE,
      cacheControl: 'no-store',
    });
    const body = reply.json() as { access_token: string };
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: expiresIn });
    return body.access_token;
  }

  it.each<[string, (account: TestAccount) => Parameters<typeof clientCredentials>]>([
    ['HTTP Basic', (account) => [{}, basic(String(account.id), account.apiKey)]],
    ['client_id and client_secret in the body', (account) => [{ client_id: String(account.id), client_secret: account.apiKey }]],
  ])(
    'when the client authenticates by %s, then 200 {access_token, token_type: Bearer, expires_in: 3600} and the token works',
    async (_how, args) => {
      const account = await platform.account({ 1: 5 });
      const issued = expectIssued(await clientCredentials(...args(account)), 3600);
      expect(issued).not.toMatch(API_KEY_PATTERN);
      expect((await balanceOf(issued)).status).toBe(200);
      expect(await isActive(issued)).toMatchObject({ active: true, client_id: String(account.id) });
    },
  );

  it.each([1800, 3600, 7200, 10800])('when expires_in is %p, then it is granted', async (seconds) => {
    const account = await platform.account({ 1: 5 });
    expectIssued(await clientCredentials({ expires_in: String(seconds) }, basic(String(account.id), account.apiKey)), seconds);
  });

  it('when expires_in is empty, then it counts as not given: the default 3600', async () => {
    const account = await platform.account({ 1: 5 });
    expectIssued(await clientCredentials({ expires_in: '' }, basic(String(account.id), account.apiKey)), 3600);
  });

  it.each(['60', '0', 'abc', '3600.0'])('when expires_in is %p, then 400 invalid_request', async (value) => {
    const account = await platform.account({ 1: 5 });
    expectOAuthError(await clientCredentials({ expires_in: value }, basic(String(account.id), account.apiKey)), 400, 'invalid_request');
  });

  it.each(['password', 'access_token', 'authorization_code'])(
    'when grant_type is %p, then 400 unsupported_grant_type',
    async (grantType) => {
      const account = await platform.account({ 1: 5 });
      expectOAuthError(
        await clientCredentials({ grant_type: grantType }, basic(String(account.id), account.apiKey)),
        400,
        'unsupported_grant_type',
      );
    },
  );

  it.each<[string, () => Promise<Parameters<typeof clientCredentials>>]>([
    ['no client authentication', () => Promise.resolve([{}])],
    ['an unknown key in Basic', async () => [{}, basic(String((await platform.account({ 1: 5 })).id), unknownKey())]],
    ['an unknown key in the body', async () => [{ client_id: String((await platform.account({ 1: 5 })).id), client_secret: unknownKey() }]],
    [
      'another account’s id with a valid key',
      async () => {
        const [mine, other] = [await platform.account({ 1: 5 }), await platform.account({ 1: 5 })];
        return [{}, basic(String(other.id), mine.apiKey)];
      },
    ],
    [
      'an account whose pools are all at 0',
      async () => {
        const account = await platform.account({ 1: 0 });
        return [{}, basic(String(account.id), account.apiKey)];
      },
    ],
  ])('when the request has %s, then 401 invalid_client', async (_case, args) => {
    expectOAuthError(await clientCredentials(...(await args())), 401, 'invalid_client');
  });

  it('when outputFormat=XML is sent with a failing client-credentials request, then the error is still JSON (RFC errors in JSON only)', async () => {
    const reply = await clientCredentials({ outputFormat: 'XML' }, basic('1', unknownKey()));
    expectOAuthError(reply, 401, 'invalid_client');
  });
});

// =============================================================================================
// §4.1 Introspection, revocation, metadata
// =============================================================================================

describe('§4.1/§9 POST /oauth/introspect (RFC 7662)', () => {
  const INACTIVE = { active: false };

  function expectLive(reply: Reply, account: TestAccount, lifetime: number): void {
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    const body = reply.json() as Record<string, unknown>;
    expect(body).toEqual({
      active: true,
      client_id: String(account.id),
      sub: String(account.id),
      exp: expect.any(Number),
      iat: expect.any(Number),
      token_type: 'Bearer',
    });
    expect(Math.abs((body.iat as number) - nowSeconds())).toBeLessThanOrEqual(5);
    expect((body.exp as number) - (body.iat as number)).toBe(lifetime);
  }

  it.each<[string, (account: TestAccount) => Record<string, string>]>([
    ['the admin token as Bearer', () => bearer(ADMIN_TOKEN)],
    ['a service JWT with audience auth', () => bearer(serviceJwt({ aud: 'auth', iss: 'product-1' }))],
    ['HTTP Basic of the token’s own account', (account) => basic(String(account.id), account.apiKey)],
  ])(
    'when a live token is introspected by %s, then {active, client_id, sub (account id strings), exp, iat, token_type}',
    async (_caller, headers) => {
      const account = await platform.account({ 1: 5 });
      const token = await platform.token(account.apiKey, 7200);
      expectLive(await introspect(token, headers(account)), account, 7200);
    },
  );

  it.each<[string, () => Promise<string>]>([
    ['unknown', () => Promise.resolve(`tk_${'A'.repeat(49)}`)],
    ['garbled', () => Promise.resolve('garbage')],
    ['an API key', () => freshKey()],
    [
      'revoked',
      async () => {
        const account = await platform.account({ 1: 5 });
        const token = await platform.token(account.apiKey);
        expect((await revoke(token, basic(String(account.id), account.apiKey))).status).toBe(200);
        return token;
      },
    ],
    [
      'issued before a key rotation',
      async () => {
        const apiKey = await freshKey();
        const token = await platform.token(apiKey);
        expect((await rotate(apiKey)).status).toBe(200);
        return token;
      },
    ],
  ])('when the token is %s, then exactly {"active":false}', async (_case, token) => {
    expectBody(await introspect(await token()), 200, INACTIVE);
  });

  it('when another account introspects by its own Basic credentials, then {"active":false} only', async () => {
    const [owner, other] = [await platform.account({ 1: 5 }), await platform.account({ 1: 5 })];
    const token = await platform.token(owner.apiKey);
    expectBody(await introspect(token, basic(String(other.id), other.apiKey)), 200, INACTIVE);
    expect(await isActive(token)).toMatchObject({ active: true });
  });

  it.each<[string, () => Promise<Record<string, string>>]>([
    ['no credential', () => Promise.resolve({})],
    ['a wrong admin token', () => Promise.resolve(bearer(`${ADMIN_TOKEN}x`))],
    ['a service JWT with audience user', () => Promise.resolve(bearer(serviceJwt({ aud: 'user' })))],
    ['a service JWT whose exp is 10 minutes ahead', () => Promise.resolve(bearer(serviceJwt({ aud: 'auth', exp: nowSeconds() + 600 })))],
    ['an expired service JWT', () => Promise.resolve(bearer(serviceJwt({ aud: 'auth', iat: nowSeconds() - 120, exp: nowSeconds() - 60 })))],
    [
      'a service JWT signed with another secret',
      () => Promise.resolve(bearer(serviceJwt({ aud: 'auth' }, { secret: `${SERVICE_JWT_SECRET}-other` }))),
    ],
    ['Basic with an unknown key', async () => basic(String((await platform.account({ 1: 5 })).id), unknownKey())],
    ['an access token as Bearer', async () => bearer(await platform.token(await freshKey()))],
  ])('when the caller presents %s, then 401', async (_case, headers) => {
    const token = await platform.token(await freshKey());
    const reply = await introspect(token, await headers());
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 401, type: JSON_TYPE });
  });
});

describe('§4.1 POST /oauth/revoke (RFC 7009)', () => {
  it.each<[string, (account: TestAccount) => Record<string, string>]>([
    ['HTTP Basic', (account) => basic(String(account.id), account.apiKey)],
    ['the seed’s Bearer base64(apiKey)', (account) => seedBearer(account.apiKey)],
  ])('when the account revokes its own token by %s, then 200 and the token is refused everywhere', async (_how, headers) => {
    const account = await platform.account({ 1: 5 });
    const [token, kept] = [await platform.token(account.apiKey), await platform.token(account.apiKey)];
    expect((await revoke(token, headers(account))).status).toBe(200);
    expectBody(await balanceOf(token), 401, unauthorized);
    expect(await isActive(token)).toEqual({ active: false });
    expect((await balanceOf(kept)).status).toBe(200);
  });

  it.each<[string, () => Promise<string>]>([
    ['an unknown token', () => Promise.resolve(`tk_${'B'.repeat(49)}`)],
    ['a garbled token', () => Promise.resolve('nonsense')],
  ])('when the account revokes %s, then 200 all the same', async (_case, token) => {
    const account = await platform.account({ 1: 5 });
    expect((await revoke(await token(), basic(String(account.id), account.apiKey))).status).toBe(200);
  });

  it('when an account revokes another account’s token, then 200 but the token stays valid (only own tokens are revoked)', async () => {
    const [owner, other] = [await platform.account({ 1: 5 }), await platform.account({ 1: 5 })];
    const token = await platform.token(owner.apiKey);
    expect((await revoke(token, basic(String(other.id), other.apiKey))).status).toBe(200);
    expect((await balanceOf(token)).status).toBe(200);
    expect(await isActive(token)).toMatchObject({ active: true });
  });

  it.each<[string, () => Promise<Record<string, string>>]>([
    ['no credential', () => Promise.resolve({})],
    ['Basic with an unknown key', async () => basic(String((await platform.account({ 1: 5 })).id), unknownKey())],
    ['the seed’s Bearer of an unknown key', () => Promise.resolve(seedBearer(unknownKey()))],
  ])('when the caller presents %s, then 401 and the token stays valid', async (_case, headers) => {
    const token = await platform.token(await freshKey());
    expect((await revoke(token, await headers())).status).toBe(401);
    expect((await balanceOf(token)).status).toBe(200);
  });
});

describe('§4.1 GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  it('when fetched, then 200 JSON naming the issuer and the token, introspection and revocation endpoints, which answer there', async () => {
    const reply = await send('auth', '/.well-known/oauth-authorization-server');
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    const body = reply.json() as Record<string, string>;
    expect(typeof body.issuer).toBe('string');
    const endpoints = { token_endpoint: '/oauth/token', introspection_endpoint: '/oauth/introspect', revocation_endpoint: '/oauth/revoke' };
    for (const [member, path] of Object.entries(endpoints)) expect(new URL(body[member] ?? 'x:').pathname).toBe(path);
    const account = await platform.account({ 1: 5 });
    const issued = await fetch(body.token_endpoint ?? '', {
      method: 'POST',
      headers: { ...basic(String(account.id), account.apiKey), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(issued.status).toBe(200);
  });
});

describe('§4.1/§9 limits: failed attempts per address, issuances per account', () => {
  const attempt = (base: 'strictAuth' | 'proxiedAuth', request: HttpRequest, path = '/oauth/token'): Promise<Reply> =>
    call(platform[base], path, request);
  const fromAddress = (address: string | undefined, headers: Record<string, string> = {}): Record<string, string> =>
    address === undefined ? headers : { ...headers, 'X-Forwarded-For': address };
  const failedToken = (base: 'strictAuth' | 'proxiedAuth', address?: string): Promise<Reply> =>
    attempt(base, { headers: fromAddress(address, seedBearer(unknownKey())), json: GRANT });

  function expectTooMany(reply: Reply): void {
    expectBody(reply, 429, TOO_MANY);
    expectRetryAfter(reply);
    expect(Number(reply.header('retry-after'))).toBeLessThanOrEqual(60);
  }

  it('when an address has failed exactly AUTH_FAILURES_PER_IP times, then it is not yet over the limit: a valid request is served', async () => {
    const address = '198.51.100.11';
    for (let index = 0; index < LOW_LIMIT; index += 1) expect((await failedToken('proxiedAuth', address)).status).toBe(401);
    const reply = await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(await freshKey())), json: GRANT });
    expect(reply.status).toBe(200);
  });

  it('when token, introspection and revocation 401s take an address over the limit, then its failing requests get 429 with Retry-After on all three endpoints, while valid requests are served', async () => {
    const address = '198.51.100.22';
    const failures = [
      await failedToken('proxiedAuth', address),
      await attempt('proxiedAuth', { headers: fromAddress(address, bearer('wrong-admin')), form: { token: 'x' } }, '/oauth/introspect'),
      await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(unknownKey())), form: { token: 'x' } }, '/oauth/revoke'),
    ];
    expect(failures.map((reply) => reply.status)).toEqual([401, 401, 401]);
    expectTooMany(await failedToken('proxiedAuth', address));
    expectTooMany(
      await attempt('proxiedAuth', { headers: fromAddress(address, bearer('wrong-admin')), form: { token: 'x' } }, '/oauth/introspect'),
    );
    expectTooMany(
      await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(unknownKey())), form: { token: 'x' } }, '/oauth/revoke'),
    );

    // CONTRACT §9: a valid credential is still served, so one client cannot lock out the others behind its address.
    const account = await platform.account({ 1: 5 });
    expect((await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(account.apiKey)), json: GRANT })).status).toBe(200);
    const grant = await attempt('proxiedAuth', {
      headers: fromAddress(address, basic(String(account.id), account.apiKey)),
      form: { grant_type: 'client_credentials' },
    });
    expect(grant.status).toBe(200);
    expect(
      (await attempt('proxiedAuth', { headers: fromAddress(address, bearer(ADMIN_TOKEN)), form: { token: 'x' } }, '/oauth/introspect'))
        .status,
    ).toBe(200);
    expect(
      (await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(account.apiKey)), form: { token: 'x' } }, '/oauth/revoke'))
        .status,
    ).toBe(200);
  });

  it('with TRUST_PROXY naming the proxy, X-Forwarded-For is the client address: another address still gets its plain 401', async () => {
    for (let index = 0; index <= LOW_LIMIT; index += 1) await failedToken('proxiedAuth', '198.51.100.33');
    expectTooMany(await failedToken('proxiedAuth', '198.51.100.33'));
    expect((await failedToken('proxiedAuth', '198.51.100.34')).status).toBe(401);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: a client over the limit cannot escape by sending it', async () => {
    for (let index = 0; index < LOW_LIMIT; index += 1) expect((await failedToken('strictAuth', `203.0.113.${index}`)).status).toBe(401);
    expectTooMany(await failedToken('strictAuth', '203.0.113.99'));
    expectTooMany(await failedToken('strictAuth', '203.0.113.100'));
    expect((await attempt('strictAuth', { headers: fromAddress('203.0.113.100', seedBearer(await freshKey())), json: GRANT })).status).toBe(
      200,
    );
  });

  it('when one account goes over TOKEN_RATE_PER_ACCOUNT issuances a minute, both flows counting, then 429 with Retry-After; other accounts are served', async () => {
    const account = await platform.account({ 1: 5 });
    const seed = (): Promise<Reply> => call(platform.meteredAuth, '/oauth/token', { headers: seedBearer(account.apiKey), json: GRANT });
    const rfc = (): Promise<Reply> =>
      call(platform.meteredAuth, '/oauth/token', {
        headers: basic(String(account.id), account.apiKey),
        form: { grant_type: 'client_credentials' },
      });
    const statuses = [(await seed()).status, (await rfc()).status, (await seed()).status];
    expect(statuses).toEqual([200, 200, 200]);
    expectTooMany(await rfc());
    expectTooMany(await seed());
    expect((await call(platform.meteredAuth, '/oauth/token', { headers: seedBearer(await freshKey()), json: GRANT })).status).toBe(200);
  });
});

// =============================================================================================
// §4.2 Token on a product request (the credential-and-credits middleware)
// =============================================================================================

describe('§4.2 a product of the domain-registration-lookup family', () => {
  const PATH = '/whoisserver/WhoisService';
  let server: Server;
  let product: string;

  beforeAll(async () => {
    const http = createHttpApp({
      service: 'product-1',
      logger: silentLogger(),
      health: new Health({}),
      openapi: {},
      envelope: 'errorMessage',
    });
    const gateway = createProductGateway({ userUrl: platform.user, serviceJwtSecret: SERVICE_JWT_SECRET, productId: 1 });
    http.app.use(gateway.routes(PATH, (accepted) => ({ WhoisRecord: { domainName: accepted.domainName } })));
    server = http.finish().listen(0, '127.0.0.1');
    await once(server, 'listening');
    product = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const lookupPool = async (apiKey: string): Promise<unknown> => (await balanceOf(apiKey, { productId: '1' })).json();

  it.each<[string, (apiKey: string, token: string) => HttpRequest]>([
    ['GET, key in apiKey', (apiKey) => ({ query: { domainName: 'example.com', apiKey } })],
    ['GET, token in apiKey', (_apiKey, token) => ({ query: { domainName: 'example.com', apiKey: token } })],
    ['GET, token as Bearer', (_apiKey, token) => ({ query: { domainName: 'example.com' }, headers: bearer(token) })],
    ['POST JSON, token as Bearer', (_apiKey, token) => ({ json: { domainName: 'example.com' }, headers: bearer(token) })],
    ['POST JSON, token in apiKey', (_apiKey, token) => ({ json: { domainName: 'example.com', apiKey: token } })],
  ])('when called by %s, then 200 and one credit is debited from the product’s pool', async (_how, request) => {
    const apiKey = await freshKey({ 1: 10 });
    const reply = await call(product, PATH, request(apiKey, await platform.token(apiKey)));
    expect(reply.status).toBe(200);
    expect(await lookupPool(apiKey)).toEqual({ data: [balanceItem(1, 9)] });
  });

  it.each(FORMATS)('when the credential is unknown, then 401 in the ErrorMessage envelope (AUTHENTICATE_01), in %s', async (format) => {
    const reply = await call(product, PATH, { query: { domainName: 'example.com', apiKey: unknownKey(), ...withFormat(format) } });
    const inner = { errorCode: 'AUTHENTICATE_01', msg: ACCESS_RESTRICTED };
    expect({ status: reply.status, type: reply.type, text: reply.text }).toEqual({
      status: 401,
      type: format === 'JSON' ? JSON_TYPE : XML_TYPE,
      text: format === 'JSON' ? JSON.stringify({ ErrorMessage: inner }) : xmlOf(inner, 'ErrorMessage'),
    });
  });

  it('when the pool is exhausted, then an ErrorMessage error with the contract’s sentence and nothing is debited', async () => {
    const apiKey = await freshKey({ 1: 0 });
    const reply = await call(product, PATH, { query: { domainName: 'example.com', apiKey } });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ ErrorMessage: { errorCode: expect.any(String), msg: ACCESS_RESTRICTED } });
    expect(await lookupPool(apiKey)).toEqual({ data: [balanceItem(1, 0)] });
  });
});

// =============================================================================================
// §4.3 GET|POST /user-service/account-balance (and the legacy /service/account-balance)
// =============================================================================================

describe('§4.3 account balance', () => {
  const HOLDINGS = { 1: 4837993, 14: 50, 28: 7 };
  const ROUTES = ['/user-service/account-balance', '/service/account-balance'].flatMap((path) =>
    (['GET', 'POST'] as const).map((method) => [method, path] as const),
  );
  const balanceRequest = (method: 'GET' | 'POST', params: Record<string, string>): HttpRequest =>
    method === 'GET' ? { query: params } : { json: params };

  it.each(ROUTES.flatMap(([method, path]) => FORMATS.map((format) => [method, path, format] as const)))(
    'when %s %s is asked for every product, then one item per held product ordered by id, pool members sharing credits, exact body in %s',
    async (method, path, format) => {
      const apiKey = await freshKey(HOLDINGS);
      const reply = await send('user', path, { method, ...balanceRequest(method, { apiKey, ...withFormat(format) }) });
      expectBody(reply, 200, { data: balanceItems(HOLDINGS) }, format);
    },
  );

  it('when the XML balance names product 28, then its & is escaped as &amp;', async () => {
    const reply = await balanceOf(await freshKey({ 28: 3 }), { outputFormat: 'XML' });
    expect(reply.text).toBe(
      `${XML_DECLARATION}<xml><data><item><product_id>28</product_id><product><id>28</id><name>Website Contacts &amp; Categorization Database</name></product><credits>3</credits></item></data></xml>`,
    );
  });

  it.each<[string, number]>([
    ['1', 1],
    ['24', 24],
    ['14', 14],
    ['109', 109],
    ['28', 28],
  ])('when productId is %p, then only that product’s item, with its pool’s credits, in JSON and XML', async (productId, id) => {
    const apiKey = await freshKey(HOLDINGS);
    const expected = { data: balanceItems(HOLDINGS).filter((item) => item.product_id === id) };
    expect(expected.data).toHaveLength(1);
    expectBody(await balanceOf(apiKey, { productId }), 200, expected);
    expectBody(await balanceOf(apiKey, { productId, outputFormat: 'XML' }), 200, expected, 'XML');
  });

  it('when productId arrives as a JSON number in a POST body, then it filters as well', async () => {
    const apiKey = await freshKey(HOLDINGS);
    expectBody(await send('user', '/user-service/account-balance', { json: { apiKey, productId: 24 } }), 200, {
      data: [balanceItem(24, HOLDINGS[1])],
    });
  });

  it.each(['7', '63', '101'])(
    'when productId %p is a product the account does not hold, then 200 {"data":[]} (XML <data/>)',
    async (productId) => {
      const apiKey = await freshKey({ 1: 5 });
      expectBody(await balanceOf(apiKey, { productId }), 200, { data: [] });
      expectBody(await balanceOf(apiKey, { productId, outputFormat: 'XML' }), 200, { data: [] }, 'XML');
      expect((await balanceOf(apiKey, { productId, outputFormat: 'XML' })).text).toBe(`${XML_DECLARATION}<xml><data/></xml>`);
    },
  );

  const PRODUCT_INVALID = invalidField('productId', 'product id');
  it.each<[string, Record<string, string | readonly string[]> | string]>([
    ['2 (not a product id)', { productId: '2' }],
    ['0', { productId: '0' }],
    ['999', { productId: '999' }],
    ['abc', { productId: 'abc' }],
    ['-1', { productId: '-1' }],
    ['" 1" (not a numeric string)', { productId: ' 1' }],
    ['1.5', { productId: '1.5' }],
    ['repeated', { productId: ['1', '24'] }],
    ['structured', 'productId[id]=1'],
  ])('when productId is %s, then 422 with the productId message, in JSON and XML', async (_case, filter) => {
    const apiKey = await freshKey({ 1: 5 });
    const query = (format: Format): string => {
      const search = new URLSearchParams({ apiKey, ...withFormat(format) }).toString();
      if (typeof filter === 'string') return `${search}&${filter}`;
      const extra = new URLSearchParams();
      for (const [name, value] of Object.entries(filter))
        for (const item of typeof value === 'string' ? [value] : value) extra.append(name, item);
      return `${search}&${extra.toString()}`;
    };
    for (const format of FORMATS)
      expectBody(await send('user', '/user-service/account-balance', { query: query(format) }), 422, PRODUCT_INVALID, format);
  });

  it.each<[string, () => Promise<HttpRequest>]>([
    ['no credential', () => Promise.resolve({})],
    ['an unknown key', () => Promise.resolve({ query: { apiKey: unknownKey() } })],
    ['a garbled key', () => Promise.resolve({ query: { apiKey: 'hello' } })],
    ['apiKey repeated', async () => ({ query: { apiKey: [await freshKey(), await freshKey()] } })],
    ['a bad Bearer token', () => Promise.resolve({ headers: bearer('tk_garbage') })],
    [
      'a revoked token',
      async () => {
        const account = await platform.account({ 1: 5 });
        const token = await platform.token(account.apiKey);
        await revoke(token, basic(String(account.id), account.apiKey));
        return { headers: bearer(token) };
      },
    ],
  ])('when the request has %s, then 401 in JSON and in XML', async (_case, request) => {
    const prepared = await request();
    for (const format of FORMATS) {
      const query = { ...(prepared.query as Record<string, string>), ...withFormat(format) };
      expectBody(await send('user', '/user-service/account-balance', { ...prepared, query }), 401, unauthorized, format);
    }
  });

  it('when every pool of the account is at 0, then it still reads its balance: 200', async () => {
    expectBody(await balanceOf(await freshKey({ 1: 0, 7: 0 })), 200, { data: balanceItems({ 1: 0, 7: 0 }) });
  });

  it.each<[string, (apiKey: string) => HttpRequest]>([
    ['productId is an empty query parameter', (apiKey) => ({ query: { apiKey, productId: '' } })],
    ['productId is JSON null', (apiKey) => ({ json: { apiKey, productId: null } })],
    ['productId is an empty form field', (apiKey) => ({ form: { apiKey, productId: '' } })],
  ])('when %s, then it counts as not given: every item', async (_case, request) => {
    expectBody(await send('user', '/user-service/account-balance', request(await freshKey(HOLDINGS))), 200, {
      data: balanceItems(HOLDINGS),
    });
  });

  it('when both apiKey and a Bearer token are sent, then apiKey is the credential (Bearer only with no apiKey at all)', async () => {
    const token = await platform.token(await freshKey());
    expectBody(
      await send('user', '/user-service/account-balance', { query: { apiKey: unknownKey() }, headers: bearer(token) }),
      401,
      unauthorized,
    );
  });

  it('when POST account-balance gets apiKey and outputFormat=xml in a form body, then 200 in XML', async () => {
    const reply = await send('user', '/service/account-balance', { form: { apiKey: await freshKey({ 7: 3 }), outputFormat: 'xml' } });
    expectBody(reply, 200, { data: [balanceItem(7, 3)] }, 'XML');
  });

  it('when the account holds nothing, then 200 {"data":[]}', async () => {
    expectBody(await balanceOf(await freshKey({})), 200, { data: [] });
  });
});

// =============================================================================================
// §4.4 GET /user-service/api-key/generate
// =============================================================================================

describe('§4.4 key generation', () => {
  it.each(FORMATS)(
    'when currentApiKey is the active key, then 200 {"apiKey":"at_…"} (29 characters after at_), no-store, in %s',
    async (format) => {
      const reply = await rotate(await freshKey(), withFormat(format));
      expect({ status: reply.status, type: reply.type, cacheControl: reply.header('cache-control') }).toEqual({
        status: 200,
        type: format === 'JSON' ? JSON_TYPE : XML_TYPE,
        cacheControl: 'no-store',
      });
      expect(reply.text).toMatch(
        format === 'JSON'
          ? /^\{"apiKey":"at_[A-Za-z0-9]{29}"\}$/
          : /^<\?xml version="1\.0" encoding="utf-8"\?><xml><apiKey>at_[A-Za-z0-9]{29}<\/apiKey><\/xml>$/,
      );
    },
  );

  it('when the key is replaced, then the new key works for balance and tokens, the old one gets 401 and 400 on a second rotation', async () => {
    const apiKey = await freshKey();
    const newKey = ((await rotate(apiKey)).json() as { apiKey: string }).apiKey;
    expect(newKey).not.toBe(apiKey);
    expect((await balanceOf(newKey)).status).toBe(200);
    expect((await send('auth', '/oauth/token', { headers: seedBearer(newKey), json: GRANT })).status).toBe(200);
    expectBody(await balanceOf(apiKey), 401, unauthorized);
    for (const format of FORMATS) expectBody(await rotate(apiKey, withFormat(format)), 400, KEY_NOT_ACTIVE, format);
  });

  it.each(FORMATS)('when currentApiKey is well shaped but unknown, then 400 with the contract’s sentence, in %s', async (format) => {
    expectBody(await rotate(unknownKey(), withFormat(format)), 400, KEY_NOT_ACTIVE, format);
  });

  const SHAPES: Array<[string, () => Promise<Record<string, string | readonly string[]>>]> = [
    ['missing', () => Promise.resolve({})],
    ['an empty string', () => Promise.resolve({ currentApiKey: '' })],
    ['not shaped like a key', () => Promise.resolve({ currentApiKey: 'hello' })],
    ['too short', () => Promise.resolve({ currentApiKey: 'at_abc' })],
    ['one character too long', async () => ({ currentApiKey: `${await freshKey()}x` })],
    ['with a character outside [A-Za-z0-9]', () => Promise.resolve({ currentApiKey: `at_${'a'.repeat(28)}-` })],
    ['an access token of the account', async () => ({ currentApiKey: await platform.token(await freshKey()) })],
    ['repeated', async () => ({ currentApiKey: [await freshKey(), await freshKey()] })],
  ];

  it.each(SHAPES.flatMap(([label, query]) => FORMATS.map((format) => [label, query, format] as const)))(
    'when currentApiKey is %s, then 422 "Input correct request parameters.", in %s',
    async (_label, query, format) => {
      expectBody(
        await send('user', '/user-service/api-key/generate', { query: { ...(await query()), ...withFormat(format) } }),
        422,
        KEY_GENERATION_422,
        format,
      );
    },
  );

  it.each<[string, Record<string, string | readonly string[]>]>([
    ['HTML', { outputFormat: 'HTML' }],
    ['repeated', { outputFormat: ['XML', 'JSON'] }],
  ])(
    'when outputFormat is %s with the active key, then 422 with the key-generation string and the key is not replaced',
    async (_case, query) => {
      const apiKey = await freshKey();
      expectBody(await rotate(apiKey, query), 422, KEY_GENERATION_422);
      expect((await balanceOf(apiKey)).status).toBe(200);
    },
  );

  it('when outputFormat is bad and the key is unknown, then 422 before 400 (shape before existence)', async () => {
    expectBody(await rotate(unknownKey(), { outputFormat: 'HTML' }), 422, KEY_GENERATION_422);
  });

  it('when two calls with the same currentApiKey race, then exactly one gets 200 and the other 400', async () => {
    const apiKey = await freshKey();
    const replies = await Promise.all([rotate(apiKey), rotate(apiKey)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 400]);
    const loser = replies.find((reply) => reply.status === 400);
    expect(loser?.text).toBe(JSON.stringify(KEY_NOT_ACTIVE));
  });
});

// =============================================================================================
// §4.5 GET /api/v2/categories and §7 category admin API
// =============================================================================================

describe('§4.5 categories', () => {
  const PATH = '/api/v2/categories';
  const list = async (query: Record<string, string> = {}): Promise<Category[]> => {
    const reply = await send('categorization', PATH, { query });
    expect(reply.status).toBe(200);
    return reply.json() as Category[];
  };
  const created: string[] = [];
  const createCategory = async (name: string, parent: string | null): Promise<Category> => {
    const reply = await admin('POST', '/admin/v1/categories', { name, parent });
    expect(reply.status).toBe(201);
    const category = reply.json() as Category;
    created.push(category.id);
    return category;
  };

  afterAll(async () => {
    for (const id of created.reverse()) await admin('DELETE', `/admin/v1/categories/${id}`);
  });

  it('when listed without a credential, then 200, a bare JSON array, and its IAB rows are exactly the 698 topical rows of the TSV', async () => {
    const reply = await send('categorization', PATH);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    expect(reply.text.startsWith('[')).toBe(true);
    const iab = (reply.json() as Category[]).filter((category) => category.id.startsWith('IAB-'));
    const tsv = iabRowsOfTsv();
    expect(tsv).toHaveLength(698);
    expect(iab).toEqual([...tsv].sort(iabOrder));
  });

  it('when listed, then every entry is exactly {id, name, parent} and every parent is in the list', async () => {
    const categories = await list();
    const ids = new Set(categories.map((category) => category.id));
    for (const category of categories) {
      expect(Object.keys(category)).toEqual(['id', 'name', 'parent']);
      expect(category.id).toMatch(/^(IAB|CUS)-[1-9][0-9]*$/);
      if (category.parent !== null) expect(ids.has(category.parent)).toBe(true);
    }
  });

  it.each([{}, { order: 'IAB' }, { order: 'iab' }])(
    'when the order is %p, then IAB order (IAB-2 before IAB-10, CUS- after IAB- on equal integers)',
    async (query) => {
      await createCategory(`Contract order ${uniqueId()}`, 'IAB-1');
      await createCategory(`Contract order ${uniqueId()}`, null);
      const categories = await list(query);
      expect(categories).toEqual([...categories].sort(iabOrder));
      const ids = categories.map((category) => category.id);
      expect(ids.indexOf('IAB-2')).toBeLessThan(ids.indexOf('IAB-10'));
      expect(ids[0]).toBe('IAB-1');
      const custom = categories.filter((category) => category.id.startsWith('CUS-'));
      for (const category of custom) {
        const twin = ids.indexOf(`IAB-${category.id.slice(4)}`);
        if (twin >= 0) expect(twin).toBeLessThan(ids.indexOf(category.id));
      }
    },
  );

  it('when order is an empty parameter, then it counts as not given: IAB order', async () => {
    const categories = await list({ order: '' });
    expect(categories).toEqual([...categories].sort(iabOrder));
  });

  it.each(['ABC', 'abc', 'Abc'])('when order is %p, then by name (case-insensitive collator), ties in IAB order', async (order) => {
    const twin = await createCategory('automotive', 'IAB-2');
    const categories = await list({ order });
    expect(categories).toEqual([...categories].sort(abcOrder));
    const ids = categories.map((category) => category.id);
    expect(ids.indexOf(twin.id)).toBe(ids.indexOf('IAB-1') + 1);
    await admin('DELETE', `/admin/v1/categories/${twin.id}`);
  });

  it.each(['IAB', 'ABC'])(
    'when outputFormat is XML with order %s, then the exact XML of the same list (<item>, <parent/>, &amp;)',
    async (order) => {
      await createCategory(`Contract <xml> & "co" — Ünïcødé 日本 🚁 ${uniqueId()}`, 'IAB-1');
      const json = await list({ order });
      const reply = await send('categorization', PATH, { query: { order, outputFormat: 'XML' } });
      expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: XML_TYPE });
      expect(reply.text).toBe(xmlOf(json));
      if (order === 'IAB')
        expect(reply.text.startsWith(`${XML_DECLARATION}<xml><item><id>IAB-1</id><name>Automotive</name><parent/></item>`)).toBe(true);
    },
  );

  it.each<[string, Record<string, string | readonly string[]> | string]>([
    ['XYZ', { order: 'XYZ' }],
    ['name', { order: 'name' }],
    ['repeated', { order: ['IAB', 'ABC'] }],
    ['structured', 'order[by]=IAB'],
  ])('when order is %s, then 422 with the order message, in JSON and XML', async (_case, query) => {
    for (const format of FORMATS) {
      const formatted =
        typeof query === 'string' ? `${query}${format === 'XML' ? '&outputFormat=XML' : ''}` : { ...query, ...withFormat(format) };
      expectBody(await send('categorization', PATH, { query: formatted }), 422, invalidField('order', 'order'), format);
    }
  });

  it('when order and outputFormat are both bad, then both are reported in one 422', async () => {
    const reply = await send('categorization', PATH, { query: { order: 'XYZ', outputFormat: 'HTML' } });
    expect({ status: reply.status, body: reply.json() }).toEqual({
      status: 422,
      body: {
        code: 422,
        messages: { order: ['The selected order is invalid.'], outputFormat: ['The selected output format is invalid.'] },
      },
    });
  });

  describe('caching: strong ETag per representation, Cache-Control public, max-age=300, If-None-Match → 304', () => {
    const REPRESENTATIONS = [
      { order: 'IAB', outputFormat: 'JSON' },
      { order: 'IAB', outputFormat: 'XML' },
      { order: 'ABC', outputFormat: 'JSON' },
      { order: 'ABC', outputFormat: 'XML' },
    ];
    const etags = async (): Promise<string[]> =>
      Promise.all(
        REPRESENTATIONS.map(async (query) => {
          const reply = await send('categorization', PATH, { query });
          expect({ status: reply.status, cacheControl: reply.header('cache-control') }).toEqual({
            status: 200,
            cacheControl: 'public, max-age=300',
          });
          return reply.header('etag') ?? '';
        }),
      );

    it('when the four representations are fetched, then each has its own strong ETag', async () => {
      const tags = await etags();
      for (const tag of tags) expect(tag).toMatch(/^"[^"]+"$/);
      expect(new Set(tags).size).toBe(4);
    });

    it('when If-None-Match carries the current ETag, then 304 with no body, the same ETag and Cache-Control', async () => {
      const tags = await etags();
      for (const [index, query] of REPRESENTATIONS.entries()) {
        const reply = await send('categorization', PATH, { query, headers: { 'If-None-Match': tags[index] ?? '' } });
        expect({ status: reply.status, text: reply.text, etag: reply.header('etag'), cacheControl: reply.header('cache-control') }).toEqual(
          {
            status: 304,
            text: '',
            etag: tags[index],
            cacheControl: 'public, max-age=300',
          },
        );
        expect(reply.header('x-request-id')).toMatch(/\S/);
      }
    });

    it('when order is spelled abc or ABC, then it is one representation with one ETag', async () => {
      const tags = await Promise.all(
        ['abc', 'ABC', 'Abc'].map(async (order) => (await send('categorization', PATH, { query: { order } })).header('etag')),
      );
      expect(new Set(tags).size).toBe(1);
    });

    it('when If-None-Match carries the ETag of another representation, then 200 with the body', async () => {
      const [iabJson, iabXml] = await etags();
      const reply = await send('categorization', PATH, {
        query: { order: 'IAB', outputFormat: 'JSON' },
        headers: { 'If-None-Match': iabXml ?? '' },
      });
      expect({ status: reply.status, etag: reply.header('etag') }).toEqual({ status: 200, etag: iabJson });
      expect(reply.text.startsWith('[')).toBe(true);
    });

    it('when a category is created, then every ETag changes and the old ETag gets 200 with the new list', async () => {
      const before = await etags();
      const category = await createCategory(`Contract etag ${uniqueId()}`, 'IAB-1');
      const after = await etags();
      for (const [index, tag] of after.entries()) expect(tag).not.toBe(before[index]);
      const reply = await send('categorization', PATH, { headers: { 'If-None-Match': before[0] ?? '' } });
      expect(reply.status).toBe(200);
      expect((reply.json() as Category[]).some((entry) => entry.id === category.id)).toBe(true);
    });
  });

  it.each<[string, () => Promise<HttpRequest>]>([
    ['an empty apiKey (not given)', () => Promise.resolve({ query: { apiKey: '' } })],
    ['a valid key as apiKey', async () => ({ query: { apiKey: await freshKey() } })],
    ['a valid token as apiKey', async () => ({ query: { apiKey: await platform.token(await freshKey()) } })],
    ['a valid token as Bearer', async () => ({ headers: bearer(await platform.token(await freshKey())) })],
  ])('when the request sends %s, then 200', async (_case, request) => {
    expect((await send('categorization', PATH, await request())).status).toBe(200);
  });

  it.each<[string, () => Promise<HttpRequest>]>([
    ['an unknown key as apiKey', () => Promise.resolve({ query: { apiKey: unknownKey() } })],
    ['a garbled apiKey', () => Promise.resolve({ query: { apiKey: 'nope' } })],
    ['a bad Bearer token', () => Promise.resolve({ headers: bearer('tk_nope') })],
    [
      'a token issued before a key rotation',
      async () => {
        const apiKey = await freshKey();
        const token = await platform.token(apiKey);
        await rotate(apiKey);
        return { query: { apiKey: token } };
      },
    ],
  ])('when the request sends %s, then a sent credential must be valid: 401 in JSON and XML', async (_case, request) => {
    const prepared = await request();
    for (const format of FORMATS) {
      const query = { ...(prepared.query as Record<string, string>), ...withFormat(format) };
      expectBody(await send('categorization', PATH, { ...prepared, query }), 401, unauthorized, format);
    }
  });
});

describe('§4.5 categories on two replicas of one database', () => {
  const PATH = '/api/v2/categories';
  const QUERIES = [{}, { outputFormat: 'XML' }, { order: 'ABC' }, { order: 'ABC', outputFormat: 'XML' }];
  const snapshot = (base: string): Promise<Array<{ etag: string | null; text: string }>> =>
    Promise.all(
      QUERIES.map(async (query) => {
        const reply = await call(base, PATH, { query });
        return { etag: reply.header('etag'), text: reply.text };
      }),
    );
  const agree = async (): Promise<true | undefined> =>
    JSON.stringify(await snapshot(platform.categorization)) === JSON.stringify(await snapshot(platform.replicaCategorization))
      ? true
      : undefined;

  it('when both replicas hold the same categories (the second start imported nothing twice), then bodies and ETags are identical', async () => {
    await eventually(agree, 5_000, 'replicas agree');
    const [first] = await snapshot(platform.replicaCategorization);
    expect((JSON.parse(first?.text ?? '[]') as Category[]).filter((category) => category.id.startsWith('IAB-'))).toHaveLength(698);
  });

  it('when a category is created and deleted on one replica, then the other serves each change, with the same ETags, within its poll interval', async () => {
    await eventually(agree, 5_000, 'replicas agree before');
    const before = await snapshot(platform.replicaCategorization);
    const created = await admin('POST', '/admin/v1/categories', { name: `Replicated ${uniqueId()}`, parent: 'IAB-1' });
    expect(created.status).toBe(201);
    const { id } = created.json() as Category;
    await eventually(agree, 5_000, 'replica sees the creation');
    const after = await snapshot(platform.replicaCategorization);
    expect(after[0]?.text).toContain(`"id":"${id}"`);
    for (const [index, entry] of after.entries()) expect(entry.etag).not.toBe(before[index]?.etag);
    expect((await admin('DELETE', `/admin/v1/categories/${id}`)).status).toBe(204);
    await eventually(agree, 5_000, 'replica sees the deletion');
    expect((await snapshot(platform.replicaCategorization))[0]?.text).not.toContain(`"id":"${id}"`);
  });
});

describe('§7/§9 category admin API', () => {
  const createCategory = (json: unknown, token?: string): Promise<Reply> => admin('POST', '/admin/v1/categories', json, token);
  const remove = (id: string, token?: string): Promise<Reply> => admin('DELETE', `/admin/v1/categories/${id}`, undefined, token);
  const listed = async (id: string): Promise<boolean> =>
    ((await send('categorization', '/api/v2/categories')).json() as Category[]).some((category) => category.id === id);

  it.each<[string, () => Promise<string | null>]>([
    ['an IAB parent', () => Promise.resolve('IAB-1')],
    ['no parent (null)', () => Promise.resolve(null)],
    ['a custom parent', async () => ((await createCategory({ name: `Parent ${uniqueId()}`, parent: null })).json() as Category).id],
  ])('when a category is created under %s, then 201 {"id":"CUS-<n>","name","parent"} and it is listed at once', async (_case, parent) => {
    const name = `Drones ${uniqueId()}`;
    const parentId = await parent();
    const reply = await createCategory({ name, parent: parentId });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 201, type: JSON_TYPE });
    const body = reply.json() as Category;
    expect(body.id).toMatch(/^CUS-[1-9][0-9]*$/);
    expect(reply.text).toBe(JSON.stringify({ id: body.id, name, parent: parentId }));
    expect(await listed(body.id)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['the parent is missing', { name: 'No parent given' }],
    ['the name is missing', { parent: 'IAB-1' }],
    ['the name is empty', { name: '', parent: 'IAB-1' }],
    ['the name is not a string', { name: ['x'], parent: 'IAB-1' }],
    ['the parent does not exist', { name: 'Orphan', parent: 'IAB-99999' }],
    ['the parent is not a category id', { name: 'Orphan', parent: 'automotive' }],
  ])('when %s, then 422 with a messages object', async (_case, json) => {
    const reply = await createCategory(json);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    const body = reply.json() as { code: number; messages: unknown };
    expect(body.code).toBe(422);
    expect(typeof body.messages === 'object' && body.messages !== null && !Array.isArray(body.messages)).toBe(true);
  });

  it.each<[string, (name: string) => unknown, (name: string) => unknown]>([
    ['the same name under the same parent', (name) => ({ name, parent: 'IAB-1' }), (name) => ({ name, parent: 'IAB-1' })],
    ['the same name in another case', (name) => ({ name, parent: 'IAB-1' }), (name) => ({ name: name.toUpperCase(), parent: 'IAB-1' })],
  ])('when a category repeats %s, then 409 with a messages string', async (_case, first, second) => {
    const name = `Twin ${uniqueId()}`;
    const original = await createCategory(first(name));
    expect(original.status).toBe(201);
    const reply = await createCategory(second(name));
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
    await remove((original.json() as Category).id);
  });

  it.each<[string, unknown]>([
    ['an IAB top-level sibling (automotive)', { name: 'automotive', parent: null }],
    ['an IAB child sibling (auto body styles under IAB-1)', { name: 'AUTO BODY STYLES', parent: 'IAB-1' }],
  ])('when the name equals %s, case-insensitively, then 409', async (_case, json) => {
    const reply = await createCategory(json);
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
  });

  it('when the same name is used under another parent, then 201', async () => {
    const name = `Elsewhere ${uniqueId()}`;
    const first = await createCategory({ name, parent: 'IAB-1' });
    const second = await createCategory({ name, parent: 'IAB-2' });
    expect([first.status, second.status]).toEqual([201, 201]);
  });

  it('when a custom category is deleted, then 204 with no body, it leaves the list, and deleting it again is 404', async () => {
    const category = (await createCategory({ name: `Doomed ${uniqueId()}`, parent: 'IAB-1' })).json() as Category;
    const reply = await remove(category.id);
    expect({ status: reply.status, text: reply.text }).toEqual({ status: 204, text: '' });
    expect(await listed(category.id)).toBe(false);
    expectBody(await remove(category.id), 404, NOT_FOUND);
  });

  it.each<[string, () => Promise<string>]>([
    ['an IAB category', () => Promise.resolve('IAB-1')],
    ['an IAB leaf', () => Promise.resolve('IAB-3')],
    [
      'a custom category with children',
      async () => {
        const parent = (await createCategory({ name: `Family ${uniqueId()}`, parent: null })).json() as Category;
        await createCategory({ name: `Child ${uniqueId()}`, parent: parent.id });
        return parent.id;
      },
    ],
  ])('when %s is deleted, then 409 with a messages string and it stays', async (_case, id) => {
    const target = await id();
    const reply = await remove(target);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
    expect(await listed(target)).toBe(true);
  });

  it.each(['CUS-987654321', 'IAB-99999', 'nonsense'])('when %p is deleted, then 404 {"code":404,"messages":"Not found."}', async (id) => {
    expectBody(await remove(id), 404, NOT_FOUND);
  });

  it.each<[string, () => Promise<Reply>]>([
    ['POST without a token', () => send('categorization', '/admin/v1/categories', { json: { name: 'x', parent: null } })],
    ['POST with a wrong token', () => createCategory({ name: 'x', parent: null }, `${ADMIN_TOKEN}-wrong`)],
    ['DELETE without a token', () => send('categorization', '/admin/v1/categories/CUS-1', { method: 'DELETE' })],
    ['DELETE of an IAB category with a wrong token', () => remove('IAB-1', 'wrong')],
  ])('when %s, then 401, JSON, no WWW-Authenticate', async (_case, request) => {
    const reply = await request();
    expectBody(reply, 401, unauthorized);
    expect(reply.header('www-authenticate')).toBeNull();
  });
});

// =============================================================================================
// §6/§9 Notification settings
// =============================================================================================

describe('§6/§9 notification settings', () => {
  const PATH = '/user-service/notification-settings';
  const read = (apiKey: string, query: Record<string, string> = {}): Promise<Reply> => send('user', PATH, { query: { apiKey, ...query } });
  const change = (apiKey: string, json: unknown, query: Record<string, string> = {}): Promise<Reply> =>
    send('user', PATH, { query: { apiKey, ...query }, json });
  const THRESHOLD_INVALID = invalidField('lowBalanceAlert.threshold', 'low balance alert.threshold');

  it.each(FORMATS)('when read for a new account, then the real defaults, exactly, in %s', async (format) => {
    expectBody(await read(await freshKey(), withFormat(format)), 200, DEFAULT_SETTINGS, format);
  });

  it('when the XML document is read, then booleans are true/false', async () => {
    expect((await read(await freshKey(), { outputFormat: 'XML' })).text).toBe(
      `${XML_DECLARATION}<xml><lowBalanceAlert><enabled>true</enabled><threshold>10</threshold></lowBalanceAlert><zeroBalanceAlert><enabled>true</enabled></zeroBalanceAlert></xml>`,
    );
  });

  it('when nested subsets are posted one after another, then each answers the whole document and keeps the fields it does not name', async () => {
    const apiKey = await freshKey();
    expectBody(await change(apiKey, { lowBalanceAlert: { threshold: 25 } }), 200, {
      lowBalanceAlert: { enabled: true, threshold: 25 },
      zeroBalanceAlert: { enabled: true },
    });
    expectBody(await change(apiKey, { zeroBalanceAlert: { enabled: false } }), 200, {
      lowBalanceAlert: { enabled: true, threshold: 25 },
      zeroBalanceAlert: { enabled: false },
    });
    const expected = { lowBalanceAlert: { enabled: false, threshold: 25 }, zeroBalanceAlert: { enabled: false } };
    expectBody(await change(apiKey, { lowBalanceAlert: { enabled: false } }, { outputFormat: 'XML' }), 200, expected, 'XML');
    expectBody(await read(apiKey), 200, expected);
    expect((await read(apiKey, { outputFormat: 'xml' })).text).toBe(
      `${XML_DECLARATION}<xml><lowBalanceAlert><enabled>false</enabled><threshold>25</threshold></lowBalanceAlert><zeroBalanceAlert><enabled>false</enabled></zeroBalanceAlert></xml>`,
    );
  });

  it('when one account changes its settings, then another account keeps the defaults', async () => {
    const [mine, other] = [await freshKey(), await freshKey()];
    expect((await change(mine, { lowBalanceAlert: { threshold: 99, enabled: false }, zeroBalanceAlert: { enabled: false } })).status).toBe(
      200,
    );
    expectBody(await read(other), 200, DEFAULT_SETTINGS);
  });

  it.each<[string, unknown]>([
    ['an empty document', {}],
    ['a JSON null section', { lowBalanceAlert: null }],
    [
      'lowBalanceAlert.enabled: null (§9: a JSON null counts as not given; only threshold: null is 422)',
      { lowBalanceAlert: { enabled: null } },
    ],
    ['zeroBalanceAlert.enabled: null (§9: a JSON null counts as not given)', { zeroBalanceAlert: { enabled: null } }],
  ])('when %s is posted, then 200 with the document unchanged', async (_case, json) => {
    expectBody(await change(await freshKey(), json), 200, DEFAULT_SETTINGS);
  });

  it.each<[unknown, number]>([
    [0, 0],
    [1_000_000_000, 1_000_000_000],
    ['25', 25],
  ])('when threshold is %p, then it is accepted as %p', async (threshold, stored) => {
    expectBody(await change(await freshKey(), { lowBalanceAlert: { threshold } }), 200, {
      lowBalanceAlert: { enabled: true, threshold: stored },
      zeroBalanceAlert: { enabled: true },
    });
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['-1', -1],
    ['1000000001', 1_000_000_001],
    ['1.5', 1.5],
    ['"abc"', 'abc'],
    ['"-5"', '-5'],
    ['true', true],
    ['an array', [10]],
    ['an object', { value: 10 }],
  ])('when threshold is %s, then 422 with the dotted field name, in JSON and XML, and nothing changes', async (_case, threshold) => {
    const apiKey = await freshKey();
    expectBody(await change(apiKey, { lowBalanceAlert: { threshold } }), 422, THRESHOLD_INVALID);
    expectBody(await change(apiKey, { lowBalanceAlert: { threshold } }, { outputFormat: 'XML' }), 422, THRESHOLD_INVALID, 'XML');
    expectBody(await read(apiKey), 200, DEFAULT_SETTINGS);
  });

  it('when threshold is null, then the XML 422 names the dotted element exactly', async () => {
    expect((await change(await freshKey(), { lowBalanceAlert: { threshold: null } }, { outputFormat: 'XML' })).text).toBe(
      `${XML_DECLARATION}<xml><code>422</code><messages><lowBalanceAlert.threshold><item>The selected low balance alert.threshold is invalid.</item></lowBalanceAlert.threshold></messages></xml>`,
    );
  });

  it.each<[string, unknown, string, string]>([
    ['lowBalanceAlert.enabled is "yes"', { lowBalanceAlert: { enabled: 'yes' } }, 'lowBalanceAlert.enabled', 'low balance alert.enabled'],
    ['zeroBalanceAlert.enabled is 1', { zeroBalanceAlert: { enabled: 1 } }, 'zeroBalanceAlert.enabled', 'zero balance alert.enabled'],
    ['lowBalanceAlert is a number', { lowBalanceAlert: 5 }, 'lowBalanceAlert', 'low balance alert'],
    ['zeroBalanceAlert is a string', { zeroBalanceAlert: 'off' }, 'zeroBalanceAlert', 'zero balance alert'],
  ])('when %s, then 422 with that (dotted) field', async (_case, json, field, words) => {
    expectBody(await change(await freshKey(), json), 422, invalidField(field, words));
  });

  it('when two fields are bad, then both are reported together', async () => {
    const reply = await change(await freshKey(), { lowBalanceAlert: { threshold: -1 }, zeroBalanceAlert: { enabled: 'no' } });
    expect({ status: reply.status, body: reply.json() }).toEqual({
      status: 422,
      body: {
        code: 422,
        messages: {
          'lowBalanceAlert.threshold': ['The selected low balance alert.threshold is invalid.'],
          'zeroBalanceAlert.enabled': ['The selected zero balance alert.enabled is invalid.'],
        },
      },
    });
  });

  it.each<[string, 'GET' | 'POST', Record<string, string>]>([
    ['GET without a credential', 'GET', {}],
    ['GET with an unknown key', 'GET', { apiKey: unknownKey() }],
    ['POST with an unknown key', 'POST', { apiKey: unknownKey() }],
  ])('when %s, then 401 in JSON and XML', async (_case, method, query) => {
    for (const format of FORMATS) {
      const reply = await send('user', PATH, {
        method,
        query: { ...query, ...withFormat(format) },
        ...(method === 'POST' ? { json: { lowBalanceAlert: { threshold: 5 } } } : {}),
      });
      expectBody(reply, 401, unauthorized, format);
    }
  });

  it('when apiKey arrives in the JSON body beside the document, then it is the credential and the change is made', async () => {
    const apiKey = await freshKey();
    expectBody(await send('user', PATH, { json: { apiKey, zeroBalanceAlert: { enabled: false } } }), 200, {
      lowBalanceAlert: { enabled: true, threshold: 10 },
      zeroBalanceAlert: { enabled: false },
    });
  });

  it('when a token is used, then it reads and changes its account’s settings', async () => {
    const apiKey = await freshKey();
    const token = await platform.token(apiKey);
    expect((await send('user', PATH, { headers: bearer(token), json: { lowBalanceAlert: { threshold: 42 } } })).status).toBe(200);
    expectBody(await read(apiKey), 200, { lowBalanceAlert: { enabled: true, threshold: 42 }, zeroBalanceAlert: { enabled: true } });
  });
});

// =============================================================================================
// §7/§9 Admin API on the user service
// =============================================================================================

describe('§7/§9 account admin API', () => {
  const email = (): string => `${uniqueId('contract')}@example.test`;
  const createAccount = (json: unknown, token?: string): Promise<Reply> => admin('POST', '/admin/v1/accounts', json, token);
  async function created(json: Record<string, unknown>): Promise<{ id: number; apiKey: string; email: string }> {
    const reply = await createAccount(json);
    expect(reply.status).toBe(201);
    return reply.json() as { id: number; apiKey: string; email: string };
  }
  const credit = (id: number | string, json: unknown, token?: string): Promise<Reply> =>
    admin('POST', `/admin/v1/accounts/${id}/credits`, json, token);

  it('when an account is created, then 201 {"id","email","apiKey","createdAt"}, no-store, a well-shaped key that works', async () => {
    const address = email();
    const reply = await createAccount({ email: address, credits: { 1: 100, 14: 50 } });
    expect({ status: reply.status, type: reply.type, cacheControl: reply.header('cache-control') }).toEqual({
      status: 201,
      type: JSON_TYPE,
      cacheControl: 'no-store',
    });
    const body = reply.json() as { id: number; apiKey: string; createdAt: string };
    expect(typeof body.id).toBe('number');
    expect(body.apiKey).toMatch(API_KEY_PATTERN);
    expect(body.createdAt).toMatch(ISO_8601);
    expect(reply.text).toBe(JSON.stringify({ id: body.id, email: address, apiKey: body.apiKey, createdAt: body.createdAt }));
    expectBody(await balanceOf(body.apiKey), 200, { data: balanceItems({ 1: 100, 14: 50 }) });
  });

  it('when credits name one member of a pool, then the account holds every product of that pool', async () => {
    const account = await created({ email: email(), credits: { 24: 5, 109: 7, 28: 1 } });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 24: 5, 109: 7, 28: 1 }) });
  });

  it.each<[string, Record<string, unknown>]>([
    ['credits is absent', {}],
    ['credits is null', { credits: null }],
    ['credits is empty', { credits: {} }],
  ])('when %s, then 201 and the account holds nothing yet', async (_case, extra) => {
    const account = await created({ email: email(), ...extra });
    expectBody(await balanceOf(account.apiKey), 200, { data: [] });
  });

  it('when credits name a pool with 0, then the account holds that pool at 0', async () => {
    const account = await created({ email: email(), credits: { 14: 0 } });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 14: 0 }) });
  });

  it('when credits are numeric strings, then they count as numbers', async () => {
    const account = await created({ email: email(), credits: { 1: '100' } });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 1: 100 }) });
  });

  it.each<[string, (address: string) => unknown]>([
    ['email is missing', () => ({ credits: { 1: 5 } })],
    ['email is not an address', () => ({ email: 'not-an-address' })],
    ['email is an array', (address) => ({ email: [address] })],
    ['two members of one pool are named (1 and 24)', (address) => ({ email: address, credits: { 1: 5, 24: 6 } })],
    ['two members of the research pool are named (14 and 101)', (address) => ({ email: address, credits: { 14: 5, 101: 6 } })],
    ['a product id is not in the catalogue', (address) => ({ email: address, credits: { 2: 5 } })],
    ['credits are negative', (address) => ({ email: address, credits: { 1: -5 } })],
    ['credits are not an integer', (address) => ({ email: address, credits: { 1: 1.5 } })],
    ['credits is an array', (address) => ({ email: address, credits: [1, 2] })],
  ])('when %s, then 422 with a messages object, and no account is created', async (_case, json) => {
    const address = email();
    const reply = await createAccount(json(address));
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    const body = reply.json() as { code: number; messages: unknown };
    expect(body.code).toBe(422);
    expect(typeof body.messages === 'object' && body.messages !== null && !Array.isArray(body.messages)).toBe(true);
    expect((await createAccount({ email: address })).status).toBe(201);
  });

  it.each<[string, (address: string) => string]>([
    ['the same e-mail', (address) => address],
    ['the same e-mail in another case', (address) => address.toUpperCase()],
  ])('when an account is created with %s, then 409 with a messages string', async (_case, again) => {
    const address = email();
    await created({ email: address });
    const reply = await createAccount({ email: again(address) });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
  });

  it('when an account is shown, then 200 {"id","email","createdAt","balances"} with balance-endpoint items and no key', async () => {
    const address = email();
    const account = await created({ email: address, credits: { 1: 100, 14: 50 } });
    const reply = await admin('GET', `/admin/v1/accounts/${account.id}`);
    const body = reply.json() as { createdAt: string };
    expect(reply.text).toBe(
      JSON.stringify({ id: account.id, email: address, createdAt: body.createdAt, balances: balanceItems({ 1: 100, 14: 50 }) }),
    );
    expect(reply.type).toBe(JSON_TYPE);
    expect(reply.text).not.toContain(account.apiKey);
  });

  it('when an account with no credits is shown, then balances is []', async () => {
    const account = await created({ email: email() });
    expect((await admin('GET', `/admin/v1/accounts/${account.id}`)).json()).toMatchObject({ balances: [] });
  });

  it.each(['987654321', 'abc', '0', '-1', '1.5'])('when account %p is shown, then 404 {"code":404,"messages":"Not found."}', async (id) => {
    expectBody(await admin('GET', `/admin/v1/accounts/${id}`), 404, NOT_FOUND);
  });

  it.each<[string, unknown, number, unknown]>([
    ['a top-up', { productId: 1, amount: 500 }, 600, 1],
    ['a top-up named by the other pool member (productId echoes 24)', { productId: 24, amount: 5 }, 105, 24],
    ['a numeric-string amount', { productId: 1, amount: '50' }, 150, 1],
    ['a negative adjustment', { productId: 1, amount: -30 }, 70, 1],
    ['a negative adjustment beyond the balance (clamped at 0)', { productId: 1, amount: -1000 }, 0, 1],
  ])('when credits get %s, then 200 {"productId","credits"}', async (_case, json, credits, productId) => {
    const account = await created({ email: email(), credits: { 1: 100 } });
    expectBody(await credit(account.id, json), 200, { productId, credits });
    expectBody(await balanceOf(account.apiKey, { productId: '24' }), 200, { data: [balanceItem(24, credits)] });
  });

  it('when credits go to a product the account does not hold, then it becomes held with its whole pool', async () => {
    const account = await created({ email: email(), credits: { 1: 10 } });
    expectBody(await credit(account.id, { productId: 27, amount: 40 }), 200, { productId: 27, credits: 40 });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 1: 10, 27: 40 }) });
  });

  it.each<[string, unknown]>([
    ['productId is missing', { amount: 5 }],
    ['amount is missing', { productId: 1 }],
    ['productId is not in the catalogue', { productId: 2, amount: 5 }],
    ['amount is a negative string', { productId: 1, amount: '-5' }],
    ['amount is not an integer', { productId: 1, amount: 1.5 }],
    ['amount is a word', { productId: 1, amount: 'ten' }],
    ['productId is an array', { productId: [1], amount: 5 }],
  ])('when %s, then 422 with a messages object and the balance is unchanged', async (_case, json) => {
    const account = await created({ email: email(), credits: { 1: 100 } });
    const reply = await credit(account.id, json);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    expect(typeof (reply.json() as { messages: unknown }).messages).toBe('object');
    expectBody(await balanceOf(account.apiKey, { productId: '1' }), 200, { data: [balanceItem(1, 100)] });
  });

  it('when productId is a numeric string, then the top-up is made', async () => {
    const account = await created({ email: email(), credits: { 1: 100 } });
    const reply = await credit(account.id, { productId: '24', amount: '5' });
    expect(reply.status).toBe(200);
    expect((reply.json() as { credits: unknown }).credits).toBe(105);
  });

  it.each<[string, () => Promise<Reply>, number, ReturnType<typeof codeMessages>]>([
    [
      'malformed JSON with the admin token',
      () => send('user', '/admin/v1/accounts', { headers: bearer(ADMIN_TOKEN), raw: { text: '{"email":', type: 'application/json' } }),
      400,
      MALFORMED,
    ],
    [
      'malformed JSON without a token (syntax before credential)',
      () => send('user', '/admin/v1/accounts', { raw: { text: '{"email":', type: 'application/json' } }),
      400,
      MALFORMED,
    ],
    [
      'a body over 16 KiB with the admin token',
      () => send('user', '/admin/v1/accounts', { headers: bearer(ADMIN_TOKEN), raw: { text: oversizeJson(), type: 'application/json' } }),
      413,
      TOO_LARGE,
    ],
    [
      'malformed JSON on the usage API',
      () => send('user', '/internal/v1/usage', { headers: bearer(serviceJwt()), raw: { text: '{"units":', type: 'application/json' } }),
      400,
      MALFORMED,
    ],
    [
      'a body over 16 KiB on the category admin API',
      () =>
        send('categorization', '/admin/v1/categories', {
          headers: bearer(ADMIN_TOKEN),
          raw: { text: oversizeJson(), type: 'application/json' },
        }),
      413,
      TOO_LARGE,
    ],
  ])('when an admin or internal endpoint gets %s, then the §2 answer', async (_case, request, status, body) => {
    expectBody(await request(), status, body);
  });

  it('when credits go to an unknown account, then 404', async () => {
    expectBody(await credit(987654321, { productId: 1, amount: 5 }), 404, NOT_FOUND);
  });

  it.each<[string, () => Promise<Reply>]>([
    ['POST /admin/v1/accounts without a token', () => send('user', '/admin/v1/accounts', { json: { email: email() } })],
    ['POST /admin/v1/accounts with a wrong token', () => createAccount({ email: email() }, `${ADMIN_TOKEN}x`)],
    [
      'POST /admin/v1/accounts with the token in another scheme',
      () => send('user', '/admin/v1/accounts', { headers: { Authorization: `Token ${ADMIN_TOKEN}` }, json: { email: email() } }),
    ],
    [
      'GET /admin/v1/accounts/987654321 with a wrong token (401 before 404)',
      () => admin('GET', '/admin/v1/accounts/987654321', undefined, 'wrong'),
    ],
    ['POST credits with a wrong token and a bad body (401 before 422)', () => credit(1, { productId: 'x' }, 'wrong')],
  ])('when %s, then 401 in JSON with no WWW-Authenticate', async (_case, request) => {
    const reply = await request();
    expectBody(reply, 401, unauthorized);
    expect(reply.header('www-authenticate')).toBeNull();
  });

  it('when the category admin API is asked for XML, then it still answers JSON (JSON only)', async () => {
    const reply = await send('categorization', '/admin/v1/categories/CUS-987654321', {
      method: 'DELETE',
      headers: bearer(ADMIN_TOKEN),
      query: { outputFormat: 'XML' },
    });
    expectBody(reply, 404, NOT_FOUND);
  });

  it('when the admin API is asked for XML, then it still answers JSON (JSON only)', async () => {
    const reply = await send('user', '/admin/v1/accounts/987654321', { headers: bearer(ADMIN_TOKEN), query: { outputFormat: 'XML' } });
    expectBody(reply, 404, NOT_FOUND);
  });
});

// =============================================================================================
// §7/§9 Internal usage API
// =============================================================================================

describe('§7/§9 POST /internal/v1/usage', () => {
  const requestId = (): string => uniqueId('usage-');
  const pool1 = async (apiKey: string): Promise<number> =>
    ((await balanceOf(apiKey, { productId: '1' })).json() as { data: Array<{ credits: number }> }).data[0]?.credits ?? -1;

  it.each<[string, (account: TestAccount, token: string) => Record<string, unknown>, number, number]>([
    ['the key, units 1', (account) => ({ credential: account.apiKey, productId: 1, units: 1 }), 1, 99],
    ['the key, units absent (default 1)', (account) => ({ credential: account.apiKey, productId: 1 }), 1, 99],
    ['a token, units "2" (numeric string)', (_account, token) => ({ credential: token, productId: 1, units: '2' }), 1, 98],
    ['the key, productId 24 (echoed), units 3', (account) => ({ credential: account.apiKey, productId: 24, units: 3 }), 24, 97],
    ['the key, productId "1" (numeric string)', (account) => ({ credential: account.apiKey, productId: '1' }), 1, 99],
    ['the key, units null (not given)', (account) => ({ credential: account.apiKey, productId: 1, units: null }), 1, 99],
  ])('when a product debits with %s, then 200 {"accountId","productId","credits"}', async (_case, body, productId, credits) => {
    const account = await platform.account({ 1: 100 });
    const reply = await usage({ ...body(account, await platform.token(account.apiKey)), requestId: requestId() });
    expectBody(reply, 200, { accountId: account.id, productId, credits });
    expect(await pool1(account.apiKey)).toBe(credits);
  });

  it('when units is 10000, then it is accepted', async () => {
    const account = await platform.account({ 1: 20_000 });
    expectBody(await usage({ credential: account.apiKey, productId: 1, units: 10_000, requestId: requestId() }), 200, {
      accountId: account.id,
      productId: 1,
      credits: 10_000,
    });
  });

  it.each<[string, unknown]>([
    ['0', 0],
    ['10001', 10_001],
    ['-1', -1],
    ['1.5', 1.5],
    ['"abc"', 'abc'],
    ['"-1"', '-1'],
    ['true', true],
    ['an array', [1]],
    ['an object', { n: 1 }],
  ])('when units is %s, then 422 with the units message and nothing is debited', async (_case, units) => {
    const account = await platform.account({ 1: 20_000 });
    expectBody(
      await usage({ credential: account.apiKey, productId: 1, units, requestId: requestId() }),
      422,
      invalidField('units', 'units'),
    );
    expect(await pool1(account.apiKey)).toBe(20_000);
  });

  it.each<[string, Record<string, unknown>]>([
    ['productId is missing', {}],
    ['productId is not in the catalogue', { productId: 2 }],
    ['productId is a word', { productId: 'one' }],
  ])('when %s, then 422 with a productId message', async (_case, body) => {
    const account = await platform.account({ 1: 10 });
    const reply = await usage({ credential: account.apiKey, requestId: requestId(), ...body });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    expect(Object.keys((reply.json() as { messages: Record<string, unknown> }).messages)).toContain('productId');
  });

  it('when the same requestId is replayed with the same body, then the first answer again and nothing more is debited', async () => {
    const account = await platform.account({ 1: 10 });
    const body = { credential: account.apiKey, productId: 1, units: 2, requestId: requestId() };
    const first = await usage(body);
    expectBody(first, 200, { accountId: account.id, productId: 1, credits: 8 });
    await usage({ credential: account.apiKey, productId: 1, units: 1, requestId: requestId() });
    const replay = await usage(body);
    expect({ status: replay.status, text: replay.text }).toEqual({ status: 200, text: first.text });
    expect(await pool1(account.apiKey)).toBe(7);
  });

  it.each<[string, (account: TestAccount, other: TestAccount) => Record<string, unknown>]>([
    ['other units', (account) => ({ credential: account.apiKey, productId: 1, units: 3 })],
    ['another product', (account) => ({ credential: account.apiKey, productId: 7, units: 2 })],
    ['another account (requestIds are global)', (_account, other) => ({ credential: other.apiKey, productId: 1, units: 2 })],
  ])('when a requestId is replayed with %s, then 409 with a messages string and nothing is debited', async (_case, second) => {
    const [account, other] = [await platform.account({ 1: 10, 7: 10 }), await platform.account({ 1: 10 })];
    const id = requestId();
    expect((await usage({ credential: account.apiKey, productId: 1, units: 2, requestId: id })).status).toBe(200);
    const reply = await usage({ ...second(account, other), requestId: id });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
    expect([await pool1(account.apiKey), await pool1(other.apiKey)]).toEqual([8, 10]);
  });

  it.each<[string, Record<number, number>, number]>([
    ['the pool is at 0', { 1: 0 }, 1],
    ['units exceed the pool (a debit fails whole)', { 1: 5 }, 6],
  ])('when %s, then 403 with the contract’s sentence and nothing is debited', async (_case, credits, units) => {
    const account = await platform.account(credits);
    const reply = await usage({ credential: account.apiKey, productId: 1, units, requestId: requestId() });
    expectBody(reply, 403, codeMessages(403, ACCESS_RESTRICTED));
    expect(reply.header('www-authenticate')).toBeNull();
    if (credits[1] !== undefined) expect(await pool1(account.apiKey)).toBe(credits[1]);
  });

  it.each<[string, () => string | undefined]>([
    ['no JWT', () => undefined],
    ['a JWT signed with another secret', () => serviceJwt({}, { secret: 'another-secret-another-secret-0123456789' })],
    ['a JWT for audience auth', () => serviceJwt({ aud: 'auth' })],
    ['a JWT without an audience', () => serviceJwt({ aud: undefined })],
    ['an expired JWT', () => serviceJwt({ iat: nowSeconds() - 600, exp: nowSeconds() - 60 })],
    ['a JWT whose exp is 10 minutes ahead', () => serviceJwt({ exp: nowSeconds() + 600 })],
    ['a JWT without exp', () => serviceJwt({ exp: undefined })],
    ['a JWT without iss', () => serviceJwt({ iss: undefined })],
    ['a JWT with an empty iss', () => serviceJwt({ iss: '' })],
    ['an unsigned JWT (alg none)', () => serviceJwt({}, { alg: 'none' })],
    ['a JWT signed HS512 instead of HS256', () => serviceJwt({}, { alg: 'HS512' })],
    ['the admin token', () => ADMIN_TOKEN],
  ])('when the caller sends %s, then 401 (JSON, code/messages, no WWW-Authenticate) and nothing is debited', async (_case, jwt) => {
    const account = await platform.account({ 1: 10 });
    const token = jwt();
    const reply = await send('user', '/internal/v1/usage', {
      ...(token === undefined ? {} : { headers: bearer(token) }),
      json: { credential: account.apiKey, productId: 1, requestId: requestId() },
    });
    expect({ status: reply.status, type: reply.type, challenge: reply.header('www-authenticate') }).toEqual({
      status: 401,
      type: JSON_TYPE,
      challenge: null,
    });
    expect(reply.json()).toEqual({ code: 401, messages: expect.any(String) });
    expect(await pool1(account.apiKey)).toBe(10);
  });

  it('when the first answer for a requestId was 403, then it left no row: sent again after a top-up it is debited, once', async () => {
    const account = await platform.account({ 1: 0 });
    const body = { credential: account.apiKey, productId: 1, units: 1, requestId: requestId() };
    expectBody(await usage(body), 403, codeMessages(403, ACCESS_RESTRICTED));
    expect((await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: 5 })).status).toBe(200);
    expectBody(await usage(body), 200, { accountId: account.id, productId: 1, credits: 4 });
    expectBody(await usage(body), 200, { accountId: account.id, productId: 1, credits: 4 });
    expect(await pool1(account.apiKey)).toBe(4);
  });

  it('when one requestId arrives five times at once, then every answer is the same 200 and one debit is made', async () => {
    const account = await platform.account({ 1: 10 });
    const body = { credential: account.apiKey, productId: 1, units: 2, requestId: requestId() };
    const replies = await Promise.all(Array.from({ length: 5 }, () => usage(body)));
    for (const reply of replies) expectBody(reply, 200, { accountId: account.id, productId: 1, credits: 8 });
    expect(await pool1(account.apiKey)).toBe(8);
  });

  it('when ten debits race for a pool of 5, then exactly five are granted and the pool ends at 0, never below', async () => {
    const account = await platform.account({ 1: 5 });
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) =>
        usage({ credential: account.apiKey, productId: index % 2 === 0 ? 1 : 24, requestId: requestId() }),
      ),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 200, 403, 403, 403, 403, 403]);
    expect(await pool1(account.apiKey)).toBe(0);
  });

  it.each<[string, () => string]>([
    ['exp exactly 5 minutes ahead', () => serviceJwt({ exp: nowSeconds() + 300 })],
    ['exp 290 seconds ahead', () => serviceJwt({ exp: nowSeconds() + 290 })],
    ['any non-empty iss', () => serviceJwt({ iss: 'x' })],
  ])('when the caller sends a JWT with %s, then it is accepted', async (_case, jwt) => {
    const account = await platform.account({ 1: 10 });
    expect((await usage({ credential: account.apiKey, productId: 1, requestId: requestId() }, jwt())).status).toBe(200);
  });

  it.each<[string, () => Promise<unknown>]>([
    ['an unknown key', () => Promise.resolve(unknownKey())],
    ['a garbled credential', () => Promise.resolve('garbage')],
    ['no credential', () => Promise.resolve(undefined)],
    [
      'a token issued before a key rotation',
      async () => {
        const apiKey = await freshKey();
        const token = await platform.token(apiKey);
        await rotate(apiKey);
        return token;
      },
    ],
  ])('when the credential is %s, then 401 with the contract’s sentence, before the 422 of a bad body', async (_case, credential) => {
    const value = await credential();
    expectBody(
      await usage({ ...(value === undefined ? {} : { credential: value }), productId: 1, units: 0, requestId: requestId() }),
      401,
      unauthorized,
    );
  });
});

// =============================================================================================
// §8 Operations, and §2 503 when a dependency is down
// =============================================================================================

const OPENAPI_PATHS: Record<ServiceName, string[]> = {
  auth: ['/oauth/token', '/oauth/introspect', '/oauth/revoke', '/.well-known/oauth-authorization-server'],
  user: ['/user-service/account-balance', '/user-service/api-key/generate', '/user-service/notification-settings'],
  categorization: ['/api/v2/categories'],
  notifier: [],
};

describe.each<ServiceName>(['auth', 'user', 'categorization', 'notifier'])('§8 operations on %s', (service) => {
  it('when /health/live is asked, then 200 {"status":"ok"}', async () => {
    expectBody(await send(service, '/health/live'), 200, { status: 'ok' });
  });

  it('when /health/ready is asked with every dependency up, then 200 {"status":"ready"}', async () => {
    expectBody(await send(service, '/health/ready'), 200, { status: 'ready' });
  });

  it('when /metrics is asked, then Prometheus text with http_requests_total and http_request_duration_seconds', async () => {
    await send(service, '/health/live');
    const reply = await send(service, '/metrics');
    expect(reply.status).toBe(200);
    expect(reply.type).toMatch(/^text\/plain/);
    expect(reply.text).toMatch(/^# TYPE http_requests_total counter$/m);
    expect(reply.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
  });

  it('when /openapi.json is asked, then an OpenAPI 3.1 document describing the service’s public endpoints', async () => {
    const reply = await send(service, '/openapi.json');
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    const document = reply.json() as { openapi?: string; paths?: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    for (const path of OPENAPI_PATHS[service]) expect(Object.keys(document.paths ?? {})).toContain(path);
  });
});

describe('§8/§9 metric labels: route template and numeric status', () => {
  it.each<[string, ServiceName, () => Promise<unknown>, Record<string, string>]>([
    ['a GET balance 401', 'user', () => balanceOf(unknownKey()), { method: 'GET', route: '/user-service/account-balance', status: '401' }],
    [
      'a POST legacy balance 401',
      'user',
      () => send('user', '/service/account-balance', { json: { apiKey: unknownKey() } }),
      { method: 'POST', route: '/service/account-balance', status: '401' },
    ],
    [
      'an admin account 404',
      'user',
      () => admin('GET', '/admin/v1/accounts/987654321'),
      { method: 'GET', route: '/admin/v1/accounts/:id', status: '404' },
    ],
    [
      'an admin credits 404',
      'user',
      () => admin('POST', '/admin/v1/accounts/987654321/credits', { productId: 1, amount: 1 }),
      { method: 'POST', route: '/admin/v1/accounts/:id/credits', status: '404' },
    ],
    [
      'a categories 200',
      'categorization',
      () => send('categorization', '/api/v2/categories'),
      { method: 'GET', route: '/api/v2/categories', status: '200' },
    ],
    [
      'a category delete 404',
      'categorization',
      () => admin('DELETE', '/admin/v1/categories/CUS-987654321'),
      { method: 'DELETE', route: '/admin/v1/categories/:id', status: '404' },
    ],
    [
      'a token 401',
      'auth',
      () => send('auth', '/oauth/token', { headers: seedBearer(unknownKey()), json: GRANT }),
      { method: 'POST', route: '/oauth/token', status: '401' },
    ],
  ])('when %s is served, then both metrics carry method, route template and numeric status', async (_case, service, request, labels) => {
    await request();
    const exposition = (await send(service, '/metrics')).text;
    expect(metricSample(exposition, 'http_requests_total', labels)).toBeDefined();
    expect(metricSample(exposition, 'http_request_duration_seconds_count', labels)).toBeDefined();
  });
});

describe('§2/§3/§8 while Redis is unreachable (a user and an auth service reach it through a TCP proxy)', () => {
  async function duringRedisOutage(work: () => Promise<void>): Promise<void> {
    platform.redisProxy.cut();
    try {
      await eventually(
        async () => ((await call(platform.fragileUser, '/health/ready')).status === 503 ? true : undefined),
        10_000,
        'readiness 503',
      );
      await work();
    } finally {
      platform.redisProxy.restore();
    }
    await eventually(
      async () => ((await call(platform.fragileUser, '/health/ready')).status === 200 ? true : undefined),
      15_000,
      'readiness 200',
    );
  }

  it('when Redis is down, then readiness is 503 with the state of each check, and 200 {"status":"ready"} once it is back', async () => {
    await duringRedisOutage(async () => {
      const reply = await call(platform.fragileUser, '/health/ready');
      expect({ status: reply.status, type: reply.type }).toEqual({ status: 503, type: JSON_TYPE });
      expect(reply.text).toContain('redis');
      expect(reply.text).toContain('postgres');
    });
    expectBody(await call(platform.fragileUser, '/health/ready'), 200, { status: 'ready' });
  });

  it.each(FORMATS)(
    'when a token must be looked up while Redis is down, then 503 with Retry-After and the contract’s sentence, in %s',
    async (format) => {
      const token = await platform.token(await freshKey());
      await duringRedisOutage(async () => {
        const reply = await call(platform.fragileUser, '/user-service/account-balance', {
          query: { apiKey: token, ...withFormat(format) },
        });
        expectBody(reply, 503, UNAVAILABLE, format);
        expectRetryAfter(reply);
      });
      expect((await call(platform.fragileUser, '/user-service/account-balance', { query: { apiKey: token } })).status).toBe(200);
    },
  );

  it('when a garbled or forged token arrives while Redis is down, then 401 (rejected without a store lookup)', async () => {
    const real = await platform.token(await freshKey());
    // One character of the random part changed: the token's own format gives it away.
    const forged = `${real.slice(0, 10)}${real[10] === 'A' ? 'B' : 'A'}${real.slice(11)}`;
    await duringRedisOutage(async () => {
      for (const token of ['tk_garbled', forged]) {
        expectBody(await call(platform.fragileUser, '/user-service/account-balance', { headers: bearer(token) }), 401, unauthorized);
      }
    });
  });

  it.each(FORMATS)(
    'when a token is requested while Redis is down, then the auth service answers 503 with Retry-After, in %s',
    async (format) => {
      const apiKey = await freshKey();
      await duringRedisOutage(async () => {
        const reply = await call(platform.fragileAuth, '/oauth/token', {
          headers: seedBearer(apiKey),
          json: { ...GRANT, ...withFormat(format) },
        });
        expectBody(reply, 503, UNAVAILABLE, format);
        expectRetryAfter(reply);
      });
      expect((await call(platform.fragileAuth, '/oauth/token', { headers: seedBearer(apiKey), json: GRANT })).status).toBe(200);
    },
  );
});
