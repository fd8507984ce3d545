import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { generateAccessToken, generateApiKey, hashSecret, newJti, signServiceJwt } from '@platform/credentials';
import { expectMalformedJson } from '@platform/testing';
import { ACCESS_RESTRICTED, ADMIN_TOKEN, JSON_TYPE, SERVICE_JWT_SECRET, useHarness } from './harness';

const PATH = '/internal/v1/usage';
const BAD_SERVICE_TOKEN = { code: 401, messages: 'Invalid service token.' };
const BAD_CREDENTIAL = { code: 401, messages: ACCESS_RESTRICTED };
const EXHAUSTED = { code: 403, messages: ACCESS_RESTRICTED };
const REUSED = { code: 409, messages: 'The request id was already used for a different request.' };

const h = useHarness();

const serviceJwt = (overrides: { secret?: string; audience?: string; ttlSeconds?: number } = {}): string =>
  signServiceJwt({
    issuer: 'product-test',
    audience: overrides.audience ?? 'user',
    secret: overrides.secret ?? SERVICE_JWT_SECRET,
    ttlSeconds: overrides.ttlSeconds ?? 60,
  });

/** `token: null` sends no Authorization header. */
const usage = (body: Record<string, unknown>, token: string | null = serviceJwt()) => {
  const call = h.http.post(PATH);
  if (token !== null) void call.set('Authorization', `Bearer ${token}`);
  return call.send(body);
};

const body = (credential: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  credential,
  productId: 1,
  units: 1,
  requestId: randomUUID(),
  ...overrides,
});

async function credits(accountId: number, poolId = 1): Promise<number> {
  const result = await h.pool.query<{ credits: number }>('SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = $2', [
    accountId,
    poolId,
  ]);
  return Number(result.rows[0]?.credits);
}

async function usageLedger(accountId: number): Promise<Array<{ delta: number; credits_after: number; request_id: string }>> {
  const result = await h.pool.query<{ delta: number; credits_after: number; request_id: string }>(
    "SELECT delta, credits_after, request_id FROM credit_ledger WHERE account_id = $1 AND cause = 'usage' ORDER BY id",
    [accountId],
  );
  return result.rows.map((row) => ({ ...row, delta: Number(row.delta), credits_after: Number(row.credits_after) }));
}

async function outboxPayloads(accountId: number): Promise<Array<Record<string, unknown>>> {
  const result = await h.pool.query<{ payload: Record<string, unknown> }>(
    "SELECT payload FROM outbox_event_list WHERE payload->>'accountId' = $1 ORDER BY seq, position",
    [String(accountId)],
  );
  return result.rows.map((row) => row.payload);
}

describe('POST /internal/v1/usage: the service JWT', () => {
  it('when no Authorization is sent, then 401 "Invalid service token." without WWW-Authenticate, and nothing is debited', async () => {
    const account = await h.account({ 1: 5 });
    const res = await usage(body(account.apiKey), null);
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual(BAD_SERVICE_TOKEN);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(await credits(account.id)).toBe(5);
  });

  it.each([
    ['signed with another secret', () => serviceJwt({ secret: 'another-secret-another-secret-0123456789' })],
    ['for the auth service (audience auth)', () => serviceJwt({ audience: 'auth' })],
    [
      'expiring an hour ahead (more than 5 minutes)',
      () => jwt.sign({}, SERVICE_JWT_SECRET, { algorithm: 'HS256', issuer: 'product-test', audience: 'user', expiresIn: 3600 }),
    ],
    [
      'already expired',
      () =>
        jwt.sign({ exp: Math.floor(Date.now() / 1000) - 60 }, SERVICE_JWT_SECRET, {
          algorithm: 'HS256',
          issuer: 'product-test',
          audience: 'user',
        }),
    ],
    ['without an issuer', () => jwt.sign({}, SERVICE_JWT_SECRET, { algorithm: 'HS256', audience: 'user', expiresIn: 60 })],
    ['the admin token', () => ADMIN_TOKEN],
    ['garbage', () => 'not.a.jwt'],
    // Issue 45: the audience is exactly `user`, not a list holding it.
    [
      'for a list of audiences holding user',
      () => jwt.sign({ aud: ['auth', 'user'] }, SERVICE_JWT_SECRET, { algorithm: 'HS256', issuer: 'product-test', expiresIn: 60 }),
    ],
  ])('when the JWT is %s, then 401 "Invalid service token."', async (_case, token) => {
    const account = await h.account({ 1: 5 });
    const res = await usage(body(account.apiKey), token());
    expect(res.status).toBe(401);
    expect(res.body).toEqual(BAD_SERVICE_TOKEN);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(await credits(account.id)).toBe(5);
  });

  it('when a JWT with a jti is sent again within its lifetime, then the replay is 401 and debits nothing; a fresh jti is served', async () => {
    const account = await h.account({ 1: 5 });
    const once = signServiceJwt({ issuer: 'product-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60, jti: newJti() });
    expect((await usage(body(account.apiKey), once)).status).toBe(200);
    const replay = await usage(body(account.apiKey), once);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual(BAD_SERVICE_TOKEN);
    expect(await credits(account.id)).toBe(4);
    const fresh = signServiceJwt({ issuer: 'product-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60, jti: newJti() });
    expect((await usage(body(account.apiKey), fresh)).status).toBe(200);
    const batch = await h.http
      .post('/internal/v1/usage/batch')
      .set('Authorization', `Bearer ${fresh}`)
      .send({ items: [body(account.apiKey)] });
    expect(batch.status).toBe(401);
    expect(await credits(account.id)).toBe(3);
  });

  it('when the customer API key is sent as the Bearer instead of a JWT, then 401 "Invalid service token."', async () => {
    const account = await h.account({ 1: 5 });
    expect((await usage(body(account.apiKey), account.apiKey)).body).toEqual(BAD_SERVICE_TOKEN);
  });

  it('when the JWT is bad and the body is invalid too, then the JWT is reported first (401)', async () => {
    const res = await usage({ units: 0 }, 'garbage');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(BAD_SERVICE_TOKEN);
  });
});

describe('POST /internal/v1/usage: the customer credential', () => {
  it('when the credential is the API key, then 200 {accountId, productId, credits} and one credit is debited', async () => {
    const account = await h.account({ 1: 5 });
    const res = await usage(body(account.apiKey));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual({ accountId: account.id, productId: 1, credits: 4 });
    expect(await credits(account.id)).toBe(4);
  });

  it('when the credential is an access token, then 200', async () => {
    const account = await h.account({ 1: 5 });
    const token = await h.token(account);
    expect((await usage(body(token))).body).toEqual({ accountId: account.id, productId: 1, credits: 4 });
  });

  it('when the token was revoked by a key rotation, then 401 with the contract sentence and nothing is debited', async () => {
    const account = await h.account({ 1: 5 });
    const token = await h.token(account);
    expect((await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey })).status).toBe(200);
    const res = await usage(body(token));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(BAD_CREDENTIAL);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect((await usage(body(account.apiKey))).status).toBe(401);
    expect(await credits(account.id)).toBe(5);
  });

  it.each([
    ['garbage', 'garbage'],
    ['an unknown key', generateApiKey()],
    ['an unknown well-formed token', generateAccessToken(hashSecret(generateApiKey()))],
    ['missing', undefined],
    ['a number', 12345],
    ['an object', { key: 'x' }],
  ])('when the credential is %s, then 401', async (_case, credential) => {
    const res = await usage({ credential, productId: 1, units: 1, requestId: randomUUID() });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(BAD_CREDENTIAL);
  });

  it('when the credential is bad and the body invalid too, then 401 before 422', async () => {
    expect((await usage({ credential: 'garbage', units: 0 })).status).toBe(401);
  });
});

describe('POST /internal/v1/usage: validation', () => {
  it.each<[unknown]>([[0], [10_001], [-1], [1.5], ['abc'], [[1]]])(
    'when units is %p, then 422 on units and nothing is debited',
    async (units) => {
      const account = await h.account({ 1: 5 });
      const res = await usage(body(account.apiKey, { units }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ code: 422, messages: { units: ['The selected units is invalid.'] } });
      expect(await credits(account.id)).toBe(5);
    },
  );

  it('when units is the numeric string "2", then 2 credits are debited', async () => {
    const account = await h.account({ 1: 5 });
    expect((await usage(body(account.apiKey, { units: '2' }))).body).toEqual({ accountId: account.id, productId: 1, credits: 3 });
  });

  it('when units is absent or null, then 1 credit is debited', async () => {
    const account = await h.account({ 1: 5 });
    expect((await usage(body(account.apiKey, { units: undefined }))).body.credits).toBe(4);
    expect((await usage(body(account.apiKey, { units: null }))).body.credits).toBe(3);
  });

  it('when units is 10000, then 10000 credits are debited', async () => {
    const account = await h.account({ 1: 10_000 });
    expect((await usage(body(account.apiKey, { units: 10_000 }))).body.credits).toBe(0);
  });

  /** A debit whose `field` is `value` answers 422 with `message` on that field alone. */
  async function expectRefusedField(field: 'productId' | 'requestId', value: unknown, message: string): Promise<void> {
    const account = await h.account({ 1: 5 });
    const res = await usage(body(account.apiKey, { [field]: value }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { [field]: [message] } });
  }

  it.each([[2], [999_999], ['abc'], [0], ['1.0']])(
    'when productId is %p (not a catalogue id), then 422 on productId',
    async (productId) => {
      await expectRefusedField('productId', productId, 'The selected product id is invalid.');
    },
  );

  it('when productId and requestId are missing, then 422 naming both as required', async () => {
    const account = await h.account({ 1: 5 });
    const res = await usage({ credential: account.apiKey });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      code: 422,
      messages: { productId: ['The product id field is required.'], requestId: ['The request id field is required.'] },
    });
  });

  it.each([['x'.repeat(201)], [42], ['with\u0000nul'], [{ id: 'x' }]])('when requestId is %p, then 422 on requestId', async (requestId) => {
    await expectRefusedField('requestId', requestId, 'The selected request id is invalid.');
  });

  it('when every field is wrong, then every field is reported together', async () => {
    const account = await h.account({ 1: 5 });
    const res = await usage({ credential: account.apiKey, productId: 2, units: 0, requestId: '' });
    expect(res.body.messages).toEqual({
      productId: ['The selected product id is invalid.'],
      units: ['The selected units is invalid.'],
      requestId: ['The request id field is required.'],
    });
  });

  it('when the JSON body is malformed, then 400', async () => {
    await expectMalformedJson(h.http.post(PATH).set('Authorization', `Bearer ${serviceJwt()}`), 'credential');
  });
});

describe('POST /internal/v1/usage: debits', () => {
  it('when the pool holds fewer credits than units, then 403, the pool keeps its credits and no ledger row or event is written', async () => {
    const account = await h.account({ 1: 2 });
    const res = await usage(body(account.apiKey, { units: 3 }));
    expect(res.status).toBe(403);
    expect(res.body).toEqual(EXHAUSTED);
    expect(await credits(account.id)).toBe(2);
    expect(await usageLedger(account.id)).toEqual([]);
    expect(await outboxPayloads(account.id)).toEqual([]);
    const kept = await h.pool.query('SELECT 1 FROM usage_requests WHERE account_id = $1', [account.id]);
    expect(kept.rowCount).toBe(0);
  });

  it('when the account does not hold the product, then 403', async () => {
    const account = await h.account({ 1: 5 });
    expect((await usage(body(account.apiKey, { productId: 7 }))).body).toEqual(EXHAUSTED);
  });

  it('when the product is Bulk WHOIS API (24, as a numeric string), then the lookup pool of WHOIS API (1) is debited and 24 is echoed', async () => {
    const account = await h.account({ 1: 5 });
    const res = await usage(body(account.apiKey, { productId: '24' }));
    expect(res.body).toEqual({ accountId: account.id, productId: 24, credits: 4 });
    const balance = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey, productId: '1' });
    expect(balance.body).toEqual({ data: [{ product_id: 1, product: { id: 1, name: 'WHOIS API' }, credits: 4 }] });
  });

  it('when a single debit succeeds, then one usage ledger row and one balance.changed event (cause usage, pool id 1) are written with it', async () => {
    const account = await h.account({ 24: 5 });
    const requestId = randomUUID();
    await usage(body(account.apiKey, { productId: 24, units: 2, requestId }));
    expect(await usageLedger(account.id)).toEqual([{ delta: -2, credits_after: 3, request_id: requestId }]);
    expect(await outboxPayloads(account.id)).toEqual([
      expect.objectContaining({
        type: 'balance.changed',
        accountId: account.id,
        productId: 1,
        previousCredits: 5,
        credits: 3,
        cause: 'usage',
      }),
    ]);
  });
});

describe('POST /internal/v1/usage: requestId replay', () => {
  it('when a request is replayed with the same body, then the first answer again, one debit and one ledger row', async () => {
    const account = await h.account({ 1: 5 });
    const first = body(account.apiKey, { units: 2 });
    const answer = await usage(first);
    await usage(body(account.apiKey));
    const replay = await usage({ ...first, units: '2' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(answer.body);
    expect(replay.body).toEqual({ accountId: account.id, productId: 1, credits: 3 });
    expect(await credits(account.id)).toBe(2);
    expect((await usageLedger(account.id)).filter((row) => row.request_id === first.requestId)).toHaveLength(1);
  });

  it('when the requestId holds a lone UTF-16 surrogate, then 200, it is kept as U+FFFD (as UTF-8 holds it) and its replay debits nothing', async () => {
    const account = await h.account({ 1: 5 });
    const prefix = `lone-${randomUUID()}`;
    const first = body(account.apiKey, { requestId: `${prefix}\ud800` });
    const answer = await usage(first);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ accountId: account.id, productId: 1, credits: 4 });
    const replay = await usage(first);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(answer.body);
    expect(await credits(account.id)).toBe(4);
    expect((await usageLedger(account.id)).map((row) => row.request_id)).toEqual([`${prefix}\ufffd`]);
  });

  it('when a refused request is sent again after a top-up, then it is served: a refusal leaves no row behind (CONTRACT §9)', async () => {
    const account = await h.account({ 1: 0 });
    const first = body(account.apiKey);
    expect((await usage(first)).status).toBe(403);
    const kept = await h.pool.query('SELECT 1 FROM usage_requests WHERE request_id = $1', [first.requestId]);
    expect(kept.rowCount).toBe(0);
    const topUp = await h.http
      .post(`/admin/v1/accounts/${account.id}/credits`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ productId: 1, amount: 5 });
    expect(topUp.status).toBe(200);
    expect((await usage(first)).body).toEqual({ accountId: account.id, productId: 1, credits: 4 });
    expect((await usage(first)).body).toEqual({ accountId: account.id, productId: 1, credits: 4 });
    expect(await credits(account.id)).toBe(4);
  });

  it.each([
    ['other units', { units: 2 }],
    ['another product', { productId: 24 }],
  ])('when a requestId is replayed with %s, then 409 and nothing is debited', async (_case, change) => {
    const account = await h.account({ 1: 5 });
    const first = body(account.apiKey);
    await usage(first);
    const res = await usage({ ...first, ...change });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(REUSED);
    expect(await credits(account.id)).toBe(4);
  });

  it("when another account's credential reuses a requestId, then 409 and the first answer is not disclosed", async () => {
    const owner = await h.account({ 1: 5 });
    const other = await h.account({ 1: 5 });
    const first = body(owner.apiKey);
    await usage(first);
    const res = await usage({ ...first, credential: other.apiKey });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(REUSED);
    expect(await credits(other.id)).toBe(5);
  });

  it('when the same first request arrives 10 times at once, then all get the same 200 answer and the pool is debited once', async () => {
    const account = await h.account({ 1: 50 });
    const first = body(account.apiKey, { units: 3 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => usage(first)));
    expect(answers.map((res) => res.status)).toEqual(Array(10).fill(200));
    for (const res of answers) expect(res.body).toEqual({ accountId: account.id, productId: 1, credits: 47 });
    expect(await credits(account.id)).toBe(47);
    expect(await usageLedger(account.id)).toHaveLength(1);
  });
});

describe('POST /internal/v1/usage: concurrency', () => {
  it('when a pool of 20 credits gets 60 concurrent debits of 1, then exactly 20 succeed, 40 get 403, the pool ends at 0 with 20 ledger rows', async () => {
    const capacity = 20;
    const account = await h.account({ 1: capacity });
    const token = await h.token(account);
    const answers = await Promise.all(
      Array.from({ length: 3 * capacity }, (_, index) =>
        usage(body(index % 2 === 0 ? account.apiKey : token, { productId: index % 3 === 0 ? 24 : 1 })),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(capacity);
    expect(statuses.filter((status) => status === 403)).toHaveLength(2 * capacity);
    expect(await credits(account.id)).toBe(0);
    const ledger = await usageLedger(account.id);
    expect(ledger).toHaveLength(capacity);
    // Every credit count from 19 down to 0 was handed out exactly once.
    const remaining = answers.filter((res) => res.status === 200).map((res) => res.body.credits as number);
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: capacity }, (_, index) => index));
    expect(ledger.map((row) => row.credits_after).sort((a, b) => a - b)).toEqual(remaining);
    // Batched: each batch writes one event for its run of debits (two when it empties the pool),
    // and the events chain from 20 down to 0.
    const events = await outboxPayloads(account.id);
    expect(events[0]?.previousCredits).toBe(capacity);
    expect(events.at(-1)?.credits).toBe(0);
    for (const [index, event] of events.entries()) {
      if (index > 0) expect(event.previousCredits).toBe(events[index - 1]?.credits);
      expect(event.credits).toBeLessThan(event.previousCredits as number);
    }
  });
});
