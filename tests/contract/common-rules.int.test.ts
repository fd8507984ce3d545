/**
 * CONTRACT §2 (and §9): the rules every public endpoint shares — output formats, empty and JSON-null
 * parameters, request ids, body limits and the order of checks, where parameters come from, the
 * WWW-Authenticate challenges, Cache-Control: no-store, request ids on every answer.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { uniqueId } from '@platform/testing';
import {
  BODY_LIMIT,
  GRANT,
  JSON_TYPE,
  KEY_GENERATION_422,
  MALFORMED,
  TOO_LARGE,
  XML_DECLARATION,
  XML_TYPE,
  badOutputFormat,
  basic,
  bearer,
  type codeMessages,
  expectBody,
  oversizeJson,
  paddedJson,
  seedBearer,
  unauthorized,
  unknownKey,
  usePlatform,
  type HttpRequest,
  type Reply,
  type ServiceName,
} from './support';
import {
  CREDENTIAL_PARAMS,
  JSON_XML_ENDPOINTS,
  takesCredential,
  type DeclaredEndpoint,
  type PublicService,
} from './support/declared-endpoints';

const { platform, send, freshKey, rotate, introspect, revoke, admin, usage } = usePlatform({ categorization: true, notifier: true });

interface PublicEndpoint extends DeclaredEndpoint {
  /** A valid request, for a fresh account where one is needed. */
  valid(): Promise<HttpRequest>;
  /** The 422 for a bad outputFormat. */
  badFormat: ReturnType<typeof codeMessages>;
}

/**
 * The valid request of a declared endpoint: a fresh key in each credential parameter it declares
 * (query string on GET, JSON body on POST). The token endpoint takes its key as the seed's
 * Bearer and a grant in its body.
 */
async function validRequest(endpoint: DeclaredEndpoint): Promise<HttpRequest> {
  if (endpoint.path === '/oauth/token') return { headers: seedBearer(await freshKey()), json: GRANT };
  const values: Record<string, string> = {};
  for (const name of CREDENTIAL_PARAMS) if (Object.hasOwn(endpoint.route.params ?? {}, name)) values[name] = await freshKey();
  return endpoint.method === 'POST' ? { json: values } : { query: values };
}

/**
 * Declared JSON/XML endpoints whose valid request needs more than a credential, each with where
 * its §2 rules are covered instead.
 */
const NEEDS_STATE: Readonly<Record<string, string>> = {
  // 200 only for an account with a reachable webhook (a plain https URL the platform would call).
  'POST /user-service/notification-settings/webhook-test': 'services/user/test/webhook-settings.int.test.ts',
};

const PUBLIC_ENDPOINTS: PublicEndpoint[] = JSON_XML_ENDPOINTS.filter((endpoint) => !Object.hasOwn(NEEDS_STATE, endpoint.name)).map(
  (endpoint) => ({
    ...endpoint,
    valid: () => validRequest(endpoint),
    badFormat: endpoint.route.refusal === 'request' ? KEY_GENERATION_422 : badOutputFormat,
  }),
);

describe('§2 the endpoints covered here are read from the route declarations', () => {
  it('when the declarations are read, then every seed and extension JSON/XML endpoint is covered, usage history included', () => {
    expect(PUBLIC_ENDPOINTS.map((endpoint) => endpoint.name)).toEqual(
      expect.arrayContaining([
        'POST /oauth/token',
        'GET /user-service/account-balance',
        'POST /service/account-balance',
        'GET /user-service/api-key/generate',
        'GET /api/v2/categories',
        'GET /user-service/notification-settings',
        'POST /user-service/notification-settings',
        'GET /user-service/usage-history',
        'POST /user-service/usage-history',
        'GET /user-service/webhook-deliveries',
      ]),
    );
  });

  it('when an endpoint is left out for the state it needs, then it is a declared JSON/XML endpoint', () => {
    const declared = JSON_XML_ENDPOINTS.map((endpoint) => endpoint.name);
    expect(declared).toEqual(expect.arrayContaining(Object.keys(NEEDS_STATE)));
  });
});

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
  service: PublicService;
  path: string;
  /** A valid request for the key; its body is JSON. */
  valid(apiKey: string): HttpRequest;
  /** The same request with an invalid parameter (422 with a good credential). */
  invalid(apiKey: string): HttpRequest;
}

/** A value no declared parameter accepts as a flat string (CONTRACT §2), and the outputFormat every JSON/XML endpoint refuses. */
const STRUCTURED = { a: '1' };

/** The POST endpoints among the JSON/XML ones: each reads a body, and refuses one parameter of it. */
const BODY_ENDPOINTS: BodyEndpoint[] = PUBLIC_ENDPOINTS.filter((endpoint) => endpoint.method === 'POST').map((endpoint) => {
  if (endpoint.path === '/oauth/token') {
    return {
      ...endpoint,
      valid: (apiKey) => ({ headers: seedBearer(apiKey), json: GRANT }),
      invalid: (apiKey) => ({ headers: seedBearer(apiKey), json: { grantType: 'password' } }),
    };
  }
  const credentials = (apiKey: string) =>
    Object.fromEntries(CREDENTIAL_PARAMS.filter((name) => Object.hasOwn(endpoint.route.params ?? {}, name)).map((name) => [name, apiKey]));
  const others = Object.keys(endpoint.route.params ?? {}).filter((name) => !(CREDENTIAL_PARAMS as readonly string[]).includes(name));
  return {
    ...endpoint,
    valid: (apiKey) => ({ json: credentials(apiKey) }),
    invalid: (apiKey) => ({
      json: { ...credentials(apiKey), outputFormat: 'HTML', ...Object.fromEntries(others.map((name) => [name, STRUCTURED])) },
    }),
  };
});

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
  // Key generation is the exception (shape, then existence): its own suite covers that order.
  const credentialFirst = PUBLIC_ENDPOINTS.filter(
    (endpoint) => endpoint.method === 'GET' && takesCredential(endpoint.route) && endpoint.route.refusal !== 'request',
  );

  it.each(credentialFirst.map((endpoint): [string, DeclaredEndpoint] => [endpoint.name, endpoint]))(
    'when %s gets an unknown key and invalid parameters, then 401 before 422',
    async (_name, { service, path, route }) => {
      const query: Record<string, string> = { apiKey: unknownKey(), outputFormat: 'HTML' };
      for (const name of Object.keys(route.params ?? {})) {
        if (!(CREDENTIAL_PARAMS as readonly string[]).includes(name) && name !== 'outputFormat') query[`${name}[a]`] = '1';
      }
      expectBody(await send(service, path, { query }), 401, unauthorized);
    },
  );

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
  const BEARER_REALM = (realm: string): string => `Bearer realm="${realm}", error="invalid_token", error_description="invalid_credential"`;
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
