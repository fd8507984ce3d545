import { balanceChangedSchema } from '@platform/events';
import { deleteKeys, expectMalformedJson, uniqueId } from '@platform/testing';
import { ACCESS_RESTRICTED, ADMIN_TOKEN, item, JSON_TYPE, startHarness, testConfig, useHarness, type Harness } from './harness';

const AUTH = `Bearer ${ADMIN_TOKEN}`;
const NOT_FOUND = { code: 404, messages: 'Not found.' };
const email = (): string => `${uniqueId('admin')}@example.test`;

const h = useHarness();

const create = (body: unknown) =>
  h.http
    .post('/admin/v1/accounts')
    .set('Authorization', AUTH)
    .send(body as object);
const credit = (accountId: number | string, body: unknown) =>
  h.http
    .post(`/admin/v1/accounts/${accountId}/credits`)
    .set('Authorization', AUTH)
    .send(body as object);

async function ledger(accountId: number): Promise<Array<{ pool_id: number; delta: number; credits_after: number; cause: string }>> {
  const result = await h.pool.query<{ pool_id: number; delta: number; credits_after: number; cause: string }>(
    'SELECT pool_id, delta, credits_after, cause FROM credit_ledger WHERE account_id = $1 ORDER BY id',
    [accountId],
  );
  return result.rows.map((row) => ({ ...row, delta: Number(row.delta), credits_after: Number(row.credits_after) }));
}

async function events(accountId: number): Promise<Array<Record<string, unknown>>> {
  const result = await h.pool.query(
    "SELECT id, routing_key, payload FROM outbox_event_list WHERE payload->>'accountId' = $1 ORDER BY (payload->>'productId')::int, payload->>'occurredAt'",
    [String(accountId)],
  );
  for (const row of result.rows) {
    expect(row.routing_key).toBe('balance.changed');
    expect(row.id).toBe(row.payload.id);
  }
  return result.rows.map((row) => balanceChangedSchema.parse(row.payload));
}

describe('admin authentication', () => {
  it.each([
    ['no Authorization', undefined],
    ['a wrong token', 'Bearer not-the-admin-token'],
    ['the token with another scheme', `Basic ${ADMIN_TOKEN}`],
    ['an empty bearer', 'Bearer '],
  ])('when the request has %s, then 401 in JSON without WWW-Authenticate', async (_name, authorization) => {
    const req = h.http.get('/admin/v1/accounts/1').query({ outputFormat: 'XML' });
    const res = await (authorization === undefined ? req : req.set('Authorization', authorization));
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual({ code: 401, messages: ACCESS_RESTRICTED });
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('when an account API key is presented as the admin token, then 401', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.get(`/admin/v1/accounts/${account.id}`).set('Authorization', `Bearer ${account.apiKey}`);
    expect(res.status).toBe(401);
  });

  it('when the admin path is unknown, then 401 without the token and 404 with it', async () => {
    expect((await h.http.get('/admin/v1/nothing')).status).toBe(401);
    const res = await h.http.get('/admin/v1/nothing').set('Authorization', AUTH);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

describe('admin failure limit per address (AUTH_FAILURES_PER_IP, shared by replicas through Redis)', () => {
  const LIMIT = 2;
  let limited: Harness;
  let prefix: string;
  beforeAll(async () => {
    prefix = `test-user:${uniqueId('adminlimit')}:`;
    // The test connects as the trusted proxy, so each X-Forwarded-For entry is a client of its own.
    const config = testConfig({ AUTH_FAILURES_PER_IP: String(LIMIT), REDIS_KEY_PREFIX: prefix, TRUST_PROXY: 'loopback' });
    limited = await startHarness({ config });
  });
  afterAll(async () => {
    await deleteKeys(limited.redis, prefix);
    await limited.stop();
  });
  const show = (address: string, token: string) =>
    limited.http.get('/admin/v1/accounts/999999999').set('X-Forwarded-For', address).set('Authorization', `Bearer ${token}`);

  it('when an address keeps guessing the admin token, then 429 with Retry-After once over the limit, and then even the right token gets 429 from that address (issue 28) while other addresses are answered as before', async () => {
    for (let attempt = 0; attempt < LIMIT; attempt += 1)
      expect((await show('203.0.113.50', `wrong-${attempt}-token-value`)).status).toBe(401);
    const refused = await show('203.0.113.50', 'wrong-again-token-value');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 429, messages: 'Too Many Requests. Try your call again later.' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await show('203.0.113.51', 'wrong-token-value')).status).toBe(401);
    expect((await show('203.0.113.50', ADMIN_TOKEN)).status).toBe(429); // an admin token has no neighbours behind its address
    expect((await show('203.0.113.52', ADMIN_TOKEN)).status).toBe(404); // served elsewhere: the account does not exist
  });
});

describe('POST /admin/v1/accounts', () => {
  it('when e-mail and credits are given, then 201 with id, email, apiKey, createdAt, not cacheable; the key reads the balance', async () => {
    const address = email();
    const res = await create({ email: address, credits: { 1: 100, 14: 50 } });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      id: expect.any(Number),
      email: address,
      apiKey: expect.stringMatching(/^at_[A-Za-z0-9]{29}$/),
      createdAt: expect.any(String),
    });
    expect(new Date(res.body.createdAt as string).toISOString()).toBe(res.body.createdAt);
    const balance = await h.http.get('/user-service/account-balance').query({ apiKey: res.body.apiKey, productId: '27' });
    expect(balance.body).toEqual({ data: [item(27, 'Screenshot API', 50)] });
    const stored = await h.pool.query('SELECT count(*)::int AS n FROM api_keys WHERE key_hash = $1', [res.body.apiKey]);
    expect(stored.rows[0].n).toBe(0);
  });

  it('when the account is created with credits, then each pool gets one ledger row and one balance.changed event', async () => {
    const res = await create({ email: email(), credits: { 24: 100, 27: '50', 7: 0 } });
    expect(res.status).toBe(201);
    const id = res.body.id as number;
    expect(await ledger(id)).toEqual([
      { pool_id: 1, delta: 100, credits_after: 100, cause: 'top-up' },
      { pool_id: 14, delta: 50, credits_after: 50, cause: 'top-up' },
    ]);
    const changes = await events(id);
    expect(
      changes.map(({ productId, previousCredits, credits, cause, type, accountId }) => ({
        productId,
        previousCredits,
        credits,
        cause,
        type,
        accountId,
      })),
    ).toEqual([
      { productId: 1, previousCredits: 0, credits: 100, cause: 'top-up', type: 'balance.changed', accountId: id },
      { productId: 14, previousCredits: 0, credits: 50, cause: 'top-up', type: 'balance.changed', accountId: id },
    ]);
    // Product 7 is held at 0.
    const details = await h.http.get(`/admin/v1/accounts/${id}`).set('Authorization', AUTH);
    expect((details.body.balances as Array<{ product_id: number }>).map((b) => b.product_id)).toEqual([
      1, 7, 14, 24, 27, 101, 102, 103, 104, 105, 106, 107, 108, 109,
    ]);
  });

  it('when credits are left out, then the account holds nothing yet', async () => {
    const res = await create({ email: email() });
    expect(res.status).toBe(201);
    const details = await h.http.get(`/admin/v1/accounts/${res.body.id}`).set('Authorization', AUTH);
    expect(details.body.balances).toEqual([]);
  });

  it('when the e-mail is taken (in any letter case), then 409 with a messages string', async () => {
    const address = email();
    expect((await create({ email: address })).status).toBe(201);
    const res = await create({ email: address.toUpperCase() });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 409, messages: 'An account with this e-mail already exists.' });
  });

  it('when the same new e-mail is created concurrently, then exactly one 201 and the rest 409', async () => {
    const address = email();
    const results = await Promise.all(Array.from({ length: 5 }, () => create({ email: address })));
    expect(results.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('when the e-mail is missing, then 422 "required"', async () => {
    const res = await create({ credits: { 1: 5 } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { email: ['The email field is required.'] } });
  });

  it.each(['not-an-email', 'a@b', '@b.c', 'a b@c.d', 5, ['a@b.c'], { a: 1 }, true, `${'a'.repeat(250)}@b.cd`])(
    'when the e-mail is %p, then 422 invalid',
    async (value) => {
      const res = await create({ email: value });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ code: 422, messages: { email: ['The selected email is invalid.'] } });
    },
  );

  it('when two members of one pool are credited, then 422 and no account is created', async () => {
    const address = email();
    const res = await create({ email: address, credits: { 1: 5, 24: 6 } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { credits: ['The selected credits is invalid.'] } });
    expect((await h.pool.query('SELECT 1 FROM accounts WHERE email = $1', [address])).rowCount).toBe(0);
  });

  it.each([
    [{ 999: 5 }, 'credits.999'],
    [{ 1: -5 }, 'credits.1'],
    [{ 1: 1.5 }, 'credits.1'],
    [{ 1: '-5' }, 'credits.1'],
    [{ 1: 'lots' }, 'credits.1'],
    [{ 1: [5] }, 'credits.1'],
    [{ 1: 1e13 }, 'credits.1'],
    [{ abc: 5 }, 'credits'],
    [[5], 'credits'],
    ['1=5', 'credits'],
  ])('when credits are %p, then 422 on %s', async (credits, field) => {
    const res = await create({ email: email(), credits });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { [field]: [`The selected ${field} is invalid.`] } });
  });

  it('when several fields are wrong, then all are reported together', async () => {
    const res = await create({ email: 'x', credits: { 1: -1 } });
    expect(res.body).toEqual({
      code: 422,
      messages: { email: ['The selected email is invalid.'], 'credits.1': ['The selected credits.1 is invalid.'] },
    });
  });

  it('when the body is malformed JSON, then 400', async () => {
    await expectMalformedJson(h.http.post('/admin/v1/accounts').set('Authorization', AUTH), 'email');
  });
});

describe('GET /admin/v1/accounts/:id', () => {
  it('when the account exists, then id, email, createdAt, balances shaped like the balance endpoint and its notification settings, no key', async () => {
    const created = await create({ email: email(), credits: { 28: 5 } });
    const res = await h.http.get(`/admin/v1/accounts/${created.body.id}`).set('Authorization', AUTH).query({ outputFormat: 'XML' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual({
      id: created.body.id,
      email: created.body.email,
      createdAt: created.body.createdAt,
      disabled: false,
      balances: [item(28, 'Website Contacts & Categorization Database', 5)],
      notifications: {
        email: created.body.email,
        lowBalanceAlert: { enabled: true, threshold: 10 },
        zeroBalanceAlert: { enabled: true },
        webhook: null,
      },
      webhookDeliveries: [],
    });
  });

  it.each(['999999999', '2147483648', 'abc', '1.5', '-1', '0', '1%20OR%201=1'])('when the id is %p, then 404', async (id) => {
    const res = await h.http.get(`/admin/v1/accounts/${id}`).set('Authorization', AUTH);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

describe('POST /admin/v1/accounts/:id/credits', () => {
  it('when a positive amount is given, then a top-up: the pool credits, one ledger row, one event', async () => {
    const account = await h.account({ 1: 100 });
    const res = await credit(account.id, { productId: 24, amount: 500 });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"productId":24,"credits":600}');
    expect(await ledger(account.id)).toEqual([{ pool_id: 1, delta: 500, credits_after: 600, cause: 'top-up' }]);
    const [event] = await events(account.id);
    expect(event).toMatchObject({
      type: 'balance.changed',
      accountId: account.id,
      productId: 1,
      previousCredits: 100,
      credits: 600,
      cause: 'top-up',
    });
  });

  it('when numbers arrive as numeric strings, then they are accepted', async () => {
    const account = await h.account({ 8: 1 });
    const res = await credit(account.id, { productId: '8', amount: '50' });
    expect(res.body).toEqual({ productId: 8, credits: 51 });
  });

  it('when a negative amount exceeds the credits, then the adjustment is clamped at 0 and the ledger records the change made', async () => {
    const account = await h.account({ 14: 30 });
    const res = await credit(account.id, { productId: 101, amount: -100 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ productId: 101, credits: 0 });
    expect(await ledger(account.id)).toEqual([{ pool_id: 14, delta: -30, credits_after: 0, cause: 'adjustment' }]);
    const [event] = await events(account.id);
    expect(event).toMatchObject({ productId: 14, previousCredits: 30, credits: 0, cause: 'adjustment' });
  });

  it('when the pool is already at 0 and is adjusted down, then 0 and nothing is recorded (no change was made)', async () => {
    const account = await h.account({ 14: 0 });
    const res = await credit(account.id, { productId: 14, amount: -5 });
    expect(res.body).toEqual({ productId: 14, credits: 0 });
    expect(await ledger(account.id)).toEqual([]);
    expect(await events(account.id)).toEqual([]);
  });

  it('when the product is not held yet, then it becomes held with its whole pool', async () => {
    const account = await h.account({ 1: 10 });
    const res = await credit(account.id, { productId: 27, amount: 5 });
    expect(res.body).toEqual({ productId: 27, credits: 5 });
    const balance = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey });
    expect((balance.body.data as Array<{ product_id: number; credits: number }>).map((b) => [b.product_id, b.credits])).toEqual([
      [1, 10],
      [14, 5],
      [24, 10],
      [27, 5],
      [101, 5],
      [102, 5],
      [103, 5],
      [104, 5],
      [105, 5],
      [106, 5],
      [107, 5],
      [108, 5],
      [109, 5],
    ]);
  });

  it('when concurrent adjustments together exceed the credits, then the pool ends at 0, never below, and the ledger adds up', async () => {
    const account = await h.account({ 8: 100 });
    const results = await Promise.all(Array.from({ length: 10 }, () => credit(account.id, { productId: 8, amount: -30 })));
    expect(results.every((res) => res.status === 200)).toBe(true);
    expect(results.map((res) => res.body.credits as number).sort((a, b) => a - b)).toEqual([0, 0, 0, 0, 0, 0, 0, 10, 40, 70]);
    const rows = await ledger(account.id);
    expect(rows.reduce((sum, row) => sum + row.delta, 0)).toBe(-100);
    expect(rows).toHaveLength(4);
    const changes = (await events(account.id)).map((event) => [event.previousCredits, event.credits]);
    expect(changes.sort((a, b) => (b[0] as number) - (a[0] as number))).toEqual([
      [100, 70],
      [70, 40],
      [40, 10],
      [10, 0],
    ]);
  });

  it('when the account does not exist, then 404', async () => {
    const res = await credit(2147483000, { productId: 1, amount: 5 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it.each([
    [{ amount: 5 }, { productId: ['The product id field is required.'] }],
    [{ productId: 1 }, { amount: ['The amount field is required.'] }],
    [
      { productId: null, amount: null },
      { productId: ['The product id field is required.'], amount: ['The amount field is required.'] },
    ],
    [{ productId: 2, amount: 5 }, { productId: ['The selected product id is invalid.'] }],
    [{ productId: 'WHOIS', amount: 5 }, { productId: ['The selected product id is invalid.'] }],
    [{ productId: 1, amount: '-5' }, { amount: ['The selected amount is invalid.'] }],
    [{ productId: 1, amount: 1.5 }, { amount: ['The selected amount is invalid.'] }],
    [{ productId: 1, amount: true }, { amount: ['The selected amount is invalid.'] }],
    [{ productId: 1, amount: 1e13 }, { amount: ['The selected amount is invalid.'] }],
    [
      { productId: [1], amount: { n: 5 } },
      { productId: ['The selected product id is invalid.'], amount: ['The selected amount is invalid.'] },
    ],
  ])('when the body is %p, then 422 %p', async (body, messages) => {
    const account = await h.account({ 1: 10 });
    const res = await credit(account.id, body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages });
    expect(await ledger(account.id)).toEqual([]);
  });
});
