/**
 * CONTRACT §4.1: `POST /oauth/token`, the seed flow (JSON and XML) and the OAuth 2.0 client-credentials
 * flow (RFC 6749 §4.4, JSON only).
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { type TestAccount } from '@platform/testing';
import {
  API_KEY_PATTERN,
  FORMATS,
  GRANT,
  JSON_TYPE,
  XML_TYPE,
  basic,
  bearer,
  type codeMessages,
  expectBody,
  expectOAuthError,
  invalidField,
  requiredField,
  seedBearer,
  unauthorized,
  unknownKey,
  withFormat,
  usePlatform,
  type HttpRequest,
  type KeyEncoding,
  type Reply,
} from './support';

const { platform, send, freshKey, balanceOf, rotate, isActive } = usePlatform();

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

  it.each(UNAUTHENTICATED.flatMap(([label, headers]) => FORMATS.map((format) => [label, format, headers] as const)))(
    'when %s, then 401 with the contract’s sentence, in %s',
    async (_label, format, headers) => {
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

  it.each(INVALID.flatMap(([label, json, body]) => FORMATS.map((format) => [label, format, json, body] as const)))(
    'when %s, then 422 with that field’s message, in %s',
    async (_label, format, json, body) => {
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
