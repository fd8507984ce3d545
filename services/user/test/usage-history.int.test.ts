import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import { DAILY_USAGE } from '../src/store/usage-history';
import { ACCESS_RESTRICTED, ADMIN_TOKEN, JSON_TYPE, SERVICE_JWT_SECRET, useHarness, XML_DECLARATION, XML_TYPE } from './harness';

const PATH = '/user-service/usage-history';
const DAY_MS = 86_400_000;
const DAYS_INVALID = { code: 422, messages: { days: ['The selected days is invalid.'] } };
const PRODUCT_INVALID = { code: 422, messages: { productId: ['The selected product id is invalid.'] } };

const h = useHarness();

const NAMES: Record<number, string> = { 1: 'WHOIS API', 7: 'Email Verification API', 14: 'Domain Research Suite', 24: 'Bulk WHOIS API' };

function row(date: string, productId: number, creditsUsed: number) {
  return { date, product_id: productId, product: { id: productId, name: NAMES[productId] }, credits_used: creditsUsed };
}

const utcMidnight = (at: Date): number => Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
const isoDate = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/**
 * Runs `check` with today's UTC midnight; runs it again (it makes its own account) in the rare
 * case that UTC midnight passed while it ran, since the server's "today" may then differ.
 */
async function onOneUtcDay(check: (today: number) => Promise<void>): Promise<void> {
  for (;;) {
    const today = utcMidnight(new Date());
    await check(today);
    if (utcMidnight(new Date()) === today) return;
  }
}

/** A debit through the internal usage API, as a product service makes it. */
async function use(apiKey: string, productId: number, units: number): Promise<void> {
  const jwt = signServiceJwt({ issuer: 'product-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
  const res = await h.http
    .post('/internal/v1/usage')
    .set('Authorization', `Bearer ${jwt}`)
    .send({ credential: apiKey, productId, units, requestId: randomUUID() });
  expect(res.status).toBe(200);
}

/** A usage row written straight into the ledger at a chosen time (product null: a row from before the column). */
async function usedAt(accountId: number, at: number, poolId: number, productId: number | null, units: number): Promise<void> {
  await h.pool.query(
    `INSERT INTO credit_ledger (account_id, pool_id, product_id, delta, credits_after, cause, request_id, created_at)
     VALUES ($1, $2, $3, $4, 0, 'usage', $5, $6)`,
    [accountId, poolId, productId, -units, randomUUID(), new Date(at)],
  );
}

const history = (query: Record<string, string | number | string[]>) => h.http.get(PATH).query(query);

describe('GET|POST /user-service/usage-history: what counts', () => {
  it('when products of one pool and of another are used, then each product has its own daily total, top-ups and adjustments left out', async () => {
    const account = await h.account({ 1: 100, 7: 100 });
    await onOneUtcDay(async (today) => {
      await use(account.apiKey, 1, 3);
      await use(account.apiKey, 24, 2);
      await use(account.apiKey, 1, 4);
      await use(account.apiKey, 7, 1);
      const admin = (body: Record<string, number>) =>
        h.http.post(`/admin/v1/accounts/${account.id}/credits`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body);
      expect((await admin({ productId: 1, amount: 50 })).status).toBe(200);
      expect((await admin({ productId: 7, amount: -5 })).status).toBe(200);

      const res = await history({ apiKey: account.apiKey });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      const day = isoDate(today);
      expect(res.body).toEqual({ data: [row(day, 1, 7), row(day, 7, 1), row(day, 24, 2)] });
    });
  });

  it('when usage falls on both sides of UTC midnight, then it is counted on two days', async () => {
    await onOneUtcDay(async (today) => {
      const account = await h.account({ 1: 100 });
      await usedAt(account.id, today - 1, 1, 1, 5);
      await usedAt(account.id, today, 1, 1, 2);
      await usedAt(account.id, today - DAY_MS, 1, 1, 1);
      await usedAt(account.id, today - DAY_MS - 1, 1, 1, 9);

      const yesterday = isoDate(today - DAY_MS);
      const twoDaysAgo = isoDate(today - 2 * DAY_MS);
      expect((await history({ apiKey: account.apiKey, days: 1 })).body).toEqual({ data: [row(isoDate(today), 1, 2)] });
      expect((await history({ apiKey: account.apiKey, days: 2 })).body).toEqual({
        data: [row(yesterday, 1, 6), row(isoDate(today), 1, 2)],
      });
      expect((await history({ apiKey: account.apiKey, days: 3 })).body).toEqual({
        data: [row(twoDaysAgo, 1, 9), row(yesterday, 1, 6), row(isoDate(today), 1, 2)],
      });
    });
  });

  it('when some days have no usage, then they have no item, and usage older than the window is left out', async () => {
    await onOneUtcDay(async (today) => {
      const account = await h.account({ 1: 100, 14: 100 });
      await usedAt(account.id, today - 29 * DAY_MS + 1000, 14, 14, 4);
      await usedAt(account.id, today - 30 * DAY_MS + 1000, 14, 14, 8);
      await usedAt(account.id, today - 5 * DAY_MS + 1000, 1, 24, 3);
      await usedAt(account.id, today + 1000, 1, 1, 1);
      expect((await history({ apiKey: account.apiKey })).body).toEqual({
        data: [row(isoDate(today - 29 * DAY_MS), 14, 4), row(isoDate(today - 5 * DAY_MS), 24, 3), row(isoDate(today), 1, 1)],
      });
      expect((await history({ apiKey: account.apiKey, days: 90 })).body.data).toHaveLength(4);
    });
  });

  it('when a usage row predates the product column, then it counts under its pool (the lowest product id)', async () => {
    await onOneUtcDay(async (today) => {
      const account = await h.account({ 1: 100 });
      await usedAt(account.id, today + 1000, 1, null, 6);
      await usedAt(account.id, today + 2000, 1, 1, 1);
      expect((await history({ apiKey: account.apiKey })).body).toEqual({ data: [row(isoDate(today), 1, 7)] });
    });
  });

  it('when another account uses credits, then they are not in this history', async () => {
    const mine = await h.account({ 1: 10 });
    const theirs = await h.account({ 1: 10 });
    await use(theirs.apiKey, 1, 5);
    expect((await history({ apiKey: mine.apiKey })).body).toEqual({ data: [] });
  });
});

describe('GET|POST /user-service/usage-history: parameters', () => {
  it('when productId names one product of a shared pool, then only that product is listed', async () => {
    const account = await h.account({ 1: 100 });
    await onOneUtcDay(async (today) => {
      await use(account.apiKey, 1, 3);
      await use(account.apiKey, 24, 2);
      expect((await history({ apiKey: account.apiKey, productId: 24 })).body).toEqual({ data: [row(isoDate(today), 24, 2)] });
    });
  });

  it('when productId is a catalogue product the account never used, then 200 with an empty list', async () => {
    const account = await h.account({ 1: 100 });
    expect((await history({ apiKey: account.apiKey, productId: 7 })).body).toEqual({ data: [] });
  });

  it.each([['999'], ['abc'], ['-1'], ['1.5']])('when productId is %s, then 422 with the productId message', async (productId) => {
    const account = await h.account({ 1: 1 });
    const res = await history({ apiKey: account.apiKey, productId });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(PRODUCT_INVALID);
  });

  it.each([['0'], ['91'], ['abc'], ['1.5'], ['-3'], ['1e1']])('when days is %s, then 422 with the days message', async (days) => {
    const account = await h.account({ 1: 1 });
    const res = await history({ apiKey: account.apiKey, days });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual(DAYS_INVALID);
  });

  it('when days is repeated (an array), then 422 with the days message', async () => {
    const account = await h.account({ 1: 1 });
    expect((await history({ apiKey: account.apiKey, days: ['1', '2'] })).body).toEqual(DAYS_INVALID);
  });

  it('when days, productId and outputFormat are all bad, then one 422 names all three', async () => {
    const account = await h.account({ 1: 1 });
    const res = await history({ apiKey: account.apiKey, days: '0', productId: 'x', outputFormat: 'YAML' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      code: 422,
      messages: {
        outputFormat: ['The selected output format is invalid.'],
        days: ['The selected days is invalid.'],
        productId: ['The selected product id is invalid.'],
      },
    });
  });

  it('when days is bad and XML is asked for, then the 422 is XML', async () => {
    const account = await h.account({ 1: 1 });
    const res = await history({ apiKey: account.apiKey, days: '100', outputFormat: 'xml' });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.text).toBe(
      `${XML_DECLARATION}<xml><code>422</code><messages><days><item>The selected days is invalid.</item></days></messages></xml>`,
    );
  });

  it('when POSTed as JSON with days as a number and a Bearer token, then the body is read', async () => {
    const account = await h.account({ 1: 100 });
    const token = await h.token(account);
    await onOneUtcDay(async (today) => {
      await use(account.apiKey, 1, 2);
      const res = await h.http.post(PATH).set('Authorization', `Bearer ${token}`).send({ days: 1, productId: '1' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [row(isoDate(today), 1, 2)] });
      const bad = await h.http.post(PATH).set('Authorization', `Bearer ${token}`).send({ days: 0 });
      expect(bad.body).toEqual(DAYS_INVALID);
    });
  });

  it('when XML is asked for, then the items are XML, and an empty history is an empty data element', async () => {
    const account = await h.account({ 1: 100 });
    await onOneUtcDay(async (today) => {
      await use(account.apiKey, 24, 3);
      const res = await history({ apiKey: account.apiKey, outputFormat: 'XML' });
      expect(res.headers['content-type']).toBe(XML_TYPE);
      expect(res.text).toBe(
        `${XML_DECLARATION}<xml><data><item><date>${isoDate(today)}</date><product_id>24</product_id>` +
          '<product><id>24</id><name>Bulk WHOIS API</name></product><credits_used>3</credits_used></item></data></xml>',
      );
    });
    const empty = await history({ apiKey: account.apiKey, productId: 7, outputFormat: 'XML' });
    expect(empty.text).toBe(`${XML_DECLARATION}<xml><data/></xml>`);
  });
});

describe('GET|POST /user-service/usage-history: credentials', () => {
  it('when no credential is sent, then 401 with the contract sentence', async () => {
    const res = await h.http.get(PATH);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 401, messages: ACCESS_RESTRICTED });
  });

  it('when the credential is bad and days is bad too, then the credential is reported first (401), in XML when asked', async () => {
    const res = await history({ apiKey: `at_${'Q'.repeat(29)}`, days: '0', outputFormat: 'XML' });
    expect(res.status).toBe(401);
    expect(res.text).toBe(`${XML_DECLARATION}<xml><code>401</code><messages>${ACCESS_RESTRICTED}</messages></xml>`);
  });

  it('when the token was revoked by a key rotation, then 401 with WWW-Authenticate', async () => {
    const account = await h.account({ 1: 5 });
    const token = await h.token(account);
    expect((await h.http.get(PATH).set('Authorization', `Bearer ${token}`)).status).toBe(200);
    expect((await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey })).status).toBe(200);
    const res = await h.http.get(PATH).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="user", error="invalid_token", error_description="invalid_credential"');
  });

  it('when a browser asks from another origin, then CORS allows GET and POST', async () => {
    const preflight = await h.http
      .options(PATH)
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET,POST');
    const account = await h.account({ 1: 5 });
    const res = await history({ apiKey: account.apiKey }).set('Origin', 'https://app.example');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('usage history query', () => {
  it('when planned, then it reads one account’s time window through an index, not the whole ledger', async () => {
    const client = await h.pool.connect();
    try {
      await client.query('BEGIN');
      // Tiny test tables make any plan cheap; forbid the sequential scan to see whether an index can serve.
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${DAILY_USAGE}`, [1, new Date(Date.now() - 30 * DAY_MS), null]);
      // Which of the account's indexes serves depends on the statistics of a shared test table (the
      // partial usage index, index-only, on a vacuumed ledger: see docs/resilience.md);
      // what must hold is a range read of one account's time window, never a scan of the ledger.
      const text = plan.rows.map((line) => line['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index Cond: \(\(account_id = 1\) AND \(created_at >= /);
      expect(text).not.toMatch(/Seq Scan/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
