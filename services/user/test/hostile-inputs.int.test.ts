import { ADMIN_TOKEN, useHarness } from './harness';
import type { TestAccount } from '@platform/testing';

// Raw query-string forms of a parameter that is not one flat, sensible string.
const QUERY_FORMS: Array<(name: string) => string> = [
  (name) => `${name}[]=x`,
  (name) => `${name}=a&${name}=b`,
  (name) => `${name}[a]=b`,
  (name) => `${name}[a]=b&${name}=json`,
  (name) => `${name}=${'A'.repeat(8000)}`,
  (name) => `${name}=${'A'.repeat(20000)}`,
  (name) => `${name}=${encodeURIComponent("' OR '1'='1'; DROP TABLE accounts; --")}`,
  (name) => `${name}=%00`,
  (name) => `${name}=%F0%9F%92%A9%E2%80%AE`,
  (name) => `${name}=%ZZ`,
  (name) => `${name}=%C0%80`,
  (name) => `${name}=%E0%A4%A`,
  (name) => `${name}=${encodeURIComponent('<xml>&amp;</xml>')}`,
  (name) => `${name}=9999999999999999999999999999`,
  (name) => `${name}=-1`,
  (name) => `${name}=1e3`,
];

// JSON body values.
const JSON_VALUES: unknown[] = [
  ['x'],
  [],
  {},
  { a: 'b' },
  123,
  -1,
  1.5,
  1e300,
  true,
  false,
  null,
  'x'.repeat(15000),
  "' OR 1=1 --",
  '\u0000',
  '💩\u202e',
  { __proto__: { polluted: true } },
];

interface Endpoint {
  name: string;
  method: 'get' | 'post';
  path: string;
  /** Parameters under test; the others get valid values. */
  params: string[];
  /** Valid values of every parameter for the account. */
  valid(account: TestAccount): Record<string, string>;
  admin?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  ...(['get', 'post'] as const).map((method): Endpoint => ({
    name: `${method.toUpperCase()} account-balance`,
    method,
    path: '/user-service/account-balance',
    params: ['apiKey', 'productId', 'outputFormat'],
    valid: (account) => ({ apiKey: account.apiKey, productId: '1', outputFormat: 'JSON' }),
  })),
  {
    name: 'GET api-key/generate',
    method: 'get',
    path: '/user-service/api-key/generate',
    params: ['currentApiKey', 'outputFormat'],
    valid: (account) => ({ currentApiKey: account.apiKey, outputFormat: 'JSON' }),
  },
  ...(['get', 'post'] as const).map((method): Endpoint => ({
    name: `${method.toUpperCase()} notification-settings`,
    method,
    path: '/user-service/notification-settings',
    params: ['apiKey', 'outputFormat'],
    valid: (account) => ({ apiKey: account.apiKey, outputFormat: 'JSON' }),
  })),
];

const h = useHarness();

function expectClientError(status: number, text: string, what: string): void {
  if (status >= 500 || status < 200) throw new Error(`${what}: ${status} ${text.slice(0, 200)}`);
  if (status >= 400 && status !== 431) {
    // Every refusal is a contract envelope, JSON or XML.
    expect(text.startsWith('{"code":') || text.includes('<xml><code>')).toBe(true);
  }
}

describe.each(ENDPOINTS)('hostile parameters on $name', (endpoint) => {
  it.each(endpoint.params)('when %s arrives in a hostile shape (query, JSON body, form body), then a 4xx, never a 5xx', async (param) => {
    const account = await h.account({ 1: 10 });
    const others = Object.entries(endpoint.valid(account)).filter(([name]) => name !== param);
    const otherQuery = others.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
    const otherBody = Object.fromEntries(others);
    for (const form of QUERY_FORMS) {
      const query = `${form(param)}&${otherQuery}`;
      const res = await h.http[endpoint.method](`${endpoint.path}?${query}`);
      expectClientError(res.status, res.text, `query ${query.slice(0, 80)}`);
      if (endpoint.method === 'post') {
        const formRes = await h.http.post(endpoint.path).type('form').send(query);
        expectClientError(formRes.status, formRes.text, `form ${query.slice(0, 80)}`);
      }
    }
    for (const value of JSON_VALUES) {
      const res = await h.http[endpoint.method](endpoint.path)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ ...otherBody, [param]: value }));
      expectClientError(res.status, res.text, `json ${JSON.stringify(value).slice(0, 80)}`);
    }
  });
});

describe('hostile bodies', () => {
  it.each(['/user-service/account-balance', '/user-service/notification-settings', '/admin/v1/accounts'])(
    'when %s gets malformed, oversized, non-object or oddly typed bodies, then 4xx',
    async (path) => {
      const bodies: Array<[string, string]> = [
        ['application/json', '{"apiKey":'],
        ['application/json', '[1,2,3]'],
        ['application/json', '"just a string"'],
        ['application/json', 'null'],
        ['application/json', JSON.stringify({ apiKey: 'x'.repeat(17 * 1024) })],
        ['application/json', `${'['.repeat(5000)}${']'.repeat(5000)}`],
        ['application/json; charset=utf-7', '{}'],
        ['application/x-www-form-urlencoded', 'a=1&'.repeat(500)],
        ['application/x-www-form-urlencoded', `apiKey=${'x'.repeat(17 * 1024)}`],
        ['text/plain', 'apiKey=at_x'],
        ['application/xml', '<xml><apiKey>x</apiKey></xml>'],
      ];
      for (const [type, body] of bodies) {
        const res = await h.http.post(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`).set('Content-Type', type).send(body);
        expectClientError(res.status, res.text, `${type} ${body.slice(0, 40)}`);
        expect(res.status).toBeGreaterThanOrEqual(400);
      }
    },
  );

  it('when the body is over 16 KiB, then 413 with the contract message', async () => {
    const res = await h.http.post('/user-service/account-balance').send({ apiKey: 'x'.repeat(17 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 413, messages: 'Request body too large.' });
  });

  it('when the settings document is nested deeply or oddly, then 4xx', async () => {
    const account = await h.account({ 1: 10 });
    const documents: unknown[] = [
      { lowBalanceAlert: { threshold: { $gt: 0 } } },
      { lowBalanceAlert: { threshold: ['1'] } },
      { lowBalanceAlert: { threshold: '1; DROP TABLE notification_settings' } },
      { lowBalanceAlert: { threshold: 1e300 } },
      { lowBalanceAlert: { threshold: -0 } },
      { lowBalanceAlert: { enabled: 'false' } },
      { lowBalanceAlert: { __proto__: { threshold: 5 } } },
      { zeroBalanceAlert: 'off' },
      { lowBalanceAlert: JSON.parse('{"__proto__": {"threshold": 5}}') as unknown },
    ];
    for (const document of documents) {
      const res = await h.http.post('/user-service/notification-settings').send({ apiKey: account.apiKey, ...(document as object) });
      expectClientError(res.status, res.text, JSON.stringify(document));
    }
    const read = await h.http.get('/user-service/notification-settings').query({ apiKey: account.apiKey });
    expect(read.body.lowBalanceAlert.threshold).toBe(0);
  });

  it('when admin bodies carry hostile values, then 4xx and never a 5xx', async () => {
    const account = await h.account({ 1: 10 });
    const values: unknown[] = [
      null,
      true,
      [],
      {},
      'x'.repeat(15000),
      "1'; --",
      1e300,
      -1e300,
      Number.MAX_SAFE_INTEGER,
      2 ** 53 + 2,
      '💩',
      '\u0000',
    ];
    for (const value of values) {
      for (const body of [{ email: value }, { email: 'a@b.c', credits: value }, { email: 'a@b.c', credits: { 1: value } }]) {
        const res = await h.http.post('/admin/v1/accounts').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body);
        expectClientError(res.status, res.text, `create ${JSON.stringify(body).slice(0, 80)}`);
      }
      for (const body of [
        { productId: value, amount: 1 },
        { productId: 1, amount: value },
      ]) {
        const res = await h.http.post(`/admin/v1/accounts/${account.id}/credits`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body);
        expectClientError(res.status, res.text, `credits ${JSON.stringify(body).slice(0, 80)}`);
      }
    }
    for (const id of ['%00', '%ZZ', 'x'.repeat(5000), '1e3', '0x10', encodeURIComponent("1' OR '1'='1")]) {
      const res = await h.http.get(`/admin/v1/accounts/${id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      expectClientError(res.status, res.text, `show ${id.slice(0, 40)}`);
    }
  });

  it('when credits would overflow exact integers, then 422 and the pool is unchanged', async () => {
    const account = await h.account({ 1: Number.MAX_SAFE_INTEGER - 10 });
    const res = await h.http
      .post(`/admin/v1/accounts/${account.id}/credits`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ productId: 1, amount: 100 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { amount: ['The selected amount is invalid.'] } });
    const balance = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: '1' });
    expect(balance.body.data[0].credits).toBe(Number.MAX_SAFE_INTEGER - 10);
  });
});
