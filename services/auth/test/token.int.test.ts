import request from 'supertest';
import { createCredentialVerifier, generateAccessToken, generateApiKey, hashSecret } from '@platform/credentials';
import { anAccount } from '@platform/testing';
import { basicOf, bearerOf, rotateKey, useAuth } from './harness';

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const RESTRICTED = 'Access restricted. Check credits balance or enter the correct API key.';
const JSON_401 = `{"code":401,"messages":"${RESTRICTED}"}`;
const XML_401 = `${XML_DECLARATION}<xml><code>401</code><messages>${RESTRICTED}</messages></xml>`;
const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';

const h = useAuth();

const token = (authorization: string | undefined, body: object | string = { grantType: 'access_token' }, query = '') => {
  const call = request(h.url).post(`/oauth/token${query}`);
  if (authorization !== undefined) call.set('Authorization', authorization);
  return typeof body === 'string' ? call.set('Content-Type', 'application/json').send(body) : call.send(body);
};

const withCredits = () => h.account({ credits: { 1: 100 } });

describe('POST /oauth/token, seed flow: success', () => {
  test('when the key is valid and only the grant type is sent, then 200 with a token for 3600 seconds, not to be cached', async () => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body as object)).toEqual(['accessToken', 'expiresIn']);
    expect(res.body).toEqual({ accessToken: expect.stringMatching(/^tk_[A-Za-z0-9_-]{53}$/), expiresIn: 3600 });
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  test.each([1800, 3600, 7200, 10800])('when expiresIn is %i, then the token lives that long in Redis', async (seconds) => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), { grantType: 'access_token', expiresIn: seconds });
    expect(res.status).toBe(200);
    expect(res.body.expiresIn).toBe(seconds);
    const ttl = await h.redis.ttl(h.tokenKey(res.body.accessToken as string));
    expect(ttl).toBeGreaterThan(seconds - 5);
    expect(ttl).toBeLessThanOrEqual(seconds);
  });

  test('when expiresIn is a numeric string, then it is accepted', async () => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), { grantType: 'access_token', expiresIn: '7200' });
    expect(res.status).toBe(200);
    expect(res.body.expiresIn).toBe(7200);
  });

  test('when outputFormat=XML is in the query, then the token comes as XML', async () => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), { grantType: 'access_token', expiresIn: 1800 }, '?outputFormat=XML');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toMatch(
      new RegExp(`^${escape(XML_DECLARATION)}<xml><accessToken>tk_[A-Za-z0-9_-]{53}</accessToken><expiresIn>1800</expiresIn></xml>$`),
    );
  });

  test('when outputFormat=xml is in the body, then the token comes as XML', async () => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), { grantType: 'access_token', outputFormat: 'xml' });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<xml><accessToken>tk_[A-Za-z0-9_-]{53}<\/accessToken><expiresIn>3600<\/expiresIn><\/xml>$/);
  });

  test('when the parameters come as a form body without grant_type, then it is still the seed flow', async () => {
    const account = await withCredits();
    const res = await request(h.url)
      .post('/oauth/token')
      .set('Authorization', bearerOf(account.apiKey))
      .type('form')
      .send('grantType=access_token&expiresIn=1800');
    expect(res.status).toBe(200);
    expect(res.body.expiresIn).toBe(1800);
  });

  test.each([
    ['URL-safe Base64 without padding', (key: string) => Buffer.from(key).toString('base64url')],
    ['standard Base64 without padding', (key: string) => Buffer.from(key).toString('base64').replace(/=+$/, '')],
    ['the raw key', (key: string) => key],
  ])('when the key is sent as %s, then it is accepted', async (_name, encode) => {
    const account = await withCredits();
    const res = await token(`Bearer ${encode(account.apiKey)}`);
    expect(res.status).toBe(200);
  });

  test('when one account asks for several tokens at once, then every one of them is valid at the same time', async () => {
    const account = await withCredits();
    const answers = await Promise.all(Array.from({ length: 8 }, () => token(bearerOf(account.apiKey))));
    const tokens = answers.map((res) => res.body.accessToken as string);
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
    expect(new Set(tokens).size).toBe(8);
    const verifier = createCredentialVerifier({ access: h.access });
    for (const issued of tokens) await expect(verifier.verify(issued)).resolves.toMatchObject({ accountId: account.id, kind: 'token' });
  });

  test('when a token is issued, then Redis holds only its hash', async () => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey));
    const issued = res.body.accessToken as string;
    const keys = await h.redis.keys(`${h.prefix}{*}:tok:*`);
    expect(keys).toContain(h.tokenKey(issued));
    expect(keys.some((key) => key.includes(issued))).toBe(false);
    const stored = await h.redis.get(h.tokenKey(issued));
    expect(stored).not.toContain(issued);
    expect(stored).not.toContain(account.apiKey);
  });
});

describe('POST /oauth/token, seed flow: 401', () => {
  const cases: Array<[string, () => Promise<string | undefined>]> = [
    ['there is no Authorization header', () => Promise.resolve(undefined)],
    ['the Authorization header is garbled', () => Promise.resolve('Bearer !!!%%%')],
    ['the Bearer value is empty', () => Promise.resolve('Bearer ')],
    ['the scheme is not Bearer', () => withCredits().then((account) => `Token ${Buffer.from(account.apiKey).toString('base64')}`)],
    ['the key is Base64 of something that is not a key', () => Promise.resolve(`Bearer ${Buffer.from('hello').toString('base64')}`)],
    ['the key is unknown', () => Promise.resolve(bearerOf(generateApiKey()))],
    [
      'the key is an access token',
      () => withCredits().then(async (account) => `Bearer ${(await token(bearerOf(account.apiKey))).body.accessToken as string}`),
    ],
    ['the key is Base64 of an access token', () => Promise.resolve(bearerOf(generateAccessToken(hashSecret(generateApiKey()))))],
    [
      'the key was replaced',
      () =>
        withCredits().then(async (account) => {
          await rotateKey(h, account, hashSecret(generateApiKey()));
          return bearerOf(account.apiKey);
        }),
    ],
    [
      'the key exists only in Postgres (its access record is missing)',
      () => anAccount(h.pool, { credits: { 1: 100 } }).then((account) => bearerOf(account.apiKey)),
    ],
    ['every credit pool of the account is at 0', () => h.account({ credits: { 1: 0, 14: 0 } }).then((account) => bearerOf(account.apiKey))],
    ['the account holds no pool at all', () => h.account().then((account) => bearerOf(account.apiKey))],
    ['the key comes as HTTP Basic', () => withCredits().then((account) => basicOf(account.id, account.apiKey))],
  ];

  test.each(cases)('when %s, then 401 in JSON', async (_name, authorization) => {
    const res = await token(await authorization());
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.text).toBe(JSON_401);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test.each(cases)('when %s, then 401 in XML', async (_name, authorization) => {
    const res = await token(await authorization(), { grantType: 'access_token', outputFormat: 'XML' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.text).toBe(XML_401);
  });

  test('when one pool of several still has credits, then the token is issued', async () => {
    const account = await h.account({ credits: { 1: 0, 14: 5 } });
    expect((await token(bearerOf(account.apiKey))).status).toBe(200);
  });

  test('when a Bearer credential is refused, then the challenge names the auth realm', async () => {
    const res = await token(bearerOf(generateApiKey()));
    expect(res.headers['www-authenticate']).toBe('Bearer realm="auth", error="invalid_token", error_description="invalid_credential"');
  });

  test('when HTTP Basic is refused, then the Basic challenge is sent', async () => {
    const res = await token(basicOf(1, generateApiKey()));
    expect(res.headers['www-authenticate']).toBe('Basic realm="auth"');
  });

  test('when no credential is sent, then there is no challenge header', async () => {
    const res = await token(undefined);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  test('when the credential and the parameters are both wrong, then the credential is reported (401)', async () => {
    const res = await token(bearerOf(generateApiKey()), { grantType: 'password', expiresIn: 5, outputFormat: 'yaml' });
    expect(res.status).toBe(401);
    expect(res.text).toBe(JSON_401);
  });
});

describe('POST /oauth/token, seed flow: 422', () => {
  const rows: Array<[string, object, string, string]> = [
    [
      'the grant type is missing',
      {},
      '{"code":422,"messages":{"grantType":["The grant type field is required."]}}',
      '<xml><code>422</code><messages><grantType><item>The grant type field is required.</item></grantType></messages></xml>',
    ],
    [
      'the grant type is not access_token',
      { grantType: 'client_credentials' },
      '{"code":422,"messages":{"grantType":["The selected grant type is invalid."]}}',
      '<xml><code>422</code><messages><grantType><item>The selected grant type is invalid.</item></grantType></messages></xml>',
    ],
    [
      'expiresIn is not one of the four lifetimes',
      { grantType: 'access_token', expiresIn: 60 },
      '{"code":422,"messages":{"expiresIn":["The selected expires in is invalid."]}}',
      '<xml><code>422</code><messages><expiresIn><item>The selected expires in is invalid.</item></expiresIn></messages></xml>',
    ],
    [
      'expiresIn is an array',
      { grantType: 'access_token', expiresIn: [3600] },
      '{"code":422,"messages":{"expiresIn":["The selected expires in is invalid."]}}',
      '<xml><code>422</code><messages><expiresIn><item>The selected expires in is invalid.</item></expiresIn></messages></xml>',
    ],
    [
      'the grant type and expiresIn are both wrong',
      { grantType: 'refresh', expiresIn: 'soon' },
      '{"code":422,"messages":{"grantType":["The selected grant type is invalid."],"expiresIn":["The selected expires in is invalid."]}}',
      '<xml><code>422</code><messages><grantType><item>The selected grant type is invalid.</item></grantType><expiresIn><item>The selected expires in is invalid.</item></expiresIn></messages></xml>',
    ],
  ];

  test.each(rows)('when %s, then 422 in JSON', async (_name, body, json) => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), body);
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.text).toBe(json);
  });

  test.each(rows)('when %s, then 422 in XML', async (_name, body, _json, xml) => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), body, '?outputFormat=xml');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.text).toBe(`${XML_DECLARATION}${xml}`);
  });

  test('when outputFormat is not JSON or XML, then 422 rendered in JSON', async () => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), { grantType: 'access_token', outputFormat: 'yaml' });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.text).toBe('{"code":422,"messages":{"outputFormat":["The selected output format is invalid."]}}');
  });

  test('when outputFormat is bad and the key is unknown, then the credential is checked first (401 in JSON)', async () => {
    const res = await token(bearerOf(generateApiKey()), { grantType: 'access_token' }, '?outputFormat=html');
    expect(res.status).toBe(401);
    expect(res.text).toBe(JSON_401);
  });

  test('when the parameters are invalid, then no token is minted', async () => {
    const account = await withCredits();
    const before = await h.redis.keys(`${h.prefix}{*}:tok:*`);
    await token(bearerOf(account.apiKey), { grantType: 'nope' });
    expect(await h.redis.keys(`${h.prefix}{*}:tok:*`)).toHaveLength(before.length);
  });
});

describe('POST /oauth/token, seed flow: malformed requests', () => {
  test('when the JSON body is malformed, then 400 before the credential is looked at', async () => {
    const res = await token(undefined, '{"grantType": ');
    expect(res.status).toBe(400);
    expect(res.text).toBe('{"code":400,"messages":"Malformed request body."}');
  });

  test('when the body is over 16 KiB, then 413', async () => {
    const account = await withCredits();
    const res = await token(bearerOf(account.apiKey), { grantType: 'access_token', padding: 'x'.repeat(17 * 1024) });
    expect(res.status).toBe(413);
    expect(res.text).toBe('{"code":413,"messages":"Request body too large."}');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
