import { Redis } from 'ioredis';
import { createRedisAccessStore, hashSecret, type AccessStore } from '@platform/credentials';
import { captureLogs, eventually, startTcpProxy, testServers } from '@platform/testing';
import { JSON_TYPE, KEY_PREFIX, startHarness, testConfig, useHarness, XML_DECLARATION, XML_TYPE, type Harness } from './harness';
import { withDependencyProxy } from './dependency-proxy';

const INPUT_INCORRECT = { code: 422, messages: 'Input correct request parameters.' };
const NOT_ACTIVE = { code: 400, messages: 'The API key you entered does not exist or is no longer active.' };
const API_KEY = /^at_[A-Za-z0-9]{29}$/;

const h = useHarness();

const generate = (query: Record<string, string>) => h.http.get('/user-service/api-key/generate').query(query);
const balance = (apiKey: string) => h.http.get('/user-service/account-balance').query({ apiKey });

async function keyRows(accountId: number): Promise<Array<{ key_hash: string; active: boolean; deactivated_at: Date | null }>> {
  const result = await h.pool.query<{ key_hash: string; active: boolean; deactivated_at: Date | null }>(
    'SELECT key_hash, active, deactivated_at FROM api_keys WHERE account_id = $1 ORDER BY id',
    [accountId],
  );
  return result.rows;
}

describe('GET /user-service/api-key/generate', () => {
  it('when the current key is valid, then 200 with a new key shaped at_ + 29 alphanumerics, not cacheable', async () => {
    const account = await h.account({ 1: 10 });
    const res = await generate({ currentApiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body)).toEqual(['apiKey']);
    expect(res.body.apiKey).toMatch(API_KEY);
    expect(res.body.apiKey).not.toBe(account.apiKey);
  });

  it('when outputFormat is XML, then the new key in the XML layout', async () => {
    const account = await h.account({ 1: 10 });
    const res = await generate({ currentApiKey: account.apiKey, outputFormat: 'xml' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XML_TYPE);
    expect(res.text).toMatch(new RegExp(`^${XML_DECLARATION.replace(/[.?]/g, '\\$&')}<xml><apiKey>at_[A-Za-z0-9]{29}</apiKey></xml>$`));
  });

  it('when the key is rotated, then the old key stops at once, the new one works, and only hashes are stored', async () => {
    const account = await h.account({ 1: 10 });
    const { body } = await generate({ currentApiKey: account.apiKey });
    const newKey = body.apiKey as string;
    expect((await balance(account.apiKey)).status).toBe(401);
    expect((await balance(newKey)).status).toBe(200);
    const rows = await keyRows(account.id);
    expect(rows).toEqual([
      { key_hash: hashSecret(account.apiKey), active: false, deactivated_at: expect.any(Date) },
      { key_hash: hashSecret(newKey), active: true, deactivated_at: null },
    ]);
  });

  it('when the replaced key is used to rotate again, then 400 (JSON and XML)', async () => {
    const account = await h.account({ 1: 10 });
    expect((await generate({ currentApiKey: account.apiKey })).status).toBe(200);
    const json = await generate({ currentApiKey: account.apiKey });
    expect(json.status).toBe(400);
    expect(json.body).toEqual(NOT_ACTIVE);
    const xml = await generate({ currentApiKey: account.apiKey, outputFormat: 'XML' });
    expect(xml.status).toBe(400);
    expect(xml.text).toBe(
      `${XML_DECLARATION}<xml><code>400</code><messages>The API key you entered does not exist or is no longer active.</messages></xml>`,
    );
  });

  it('when the key is well-formed but unknown, then 400', async () => {
    const res = await generate({ currentApiKey: 'at_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(NOT_ACTIVE);
  });

  it('when the new key is rotated in turn, then each step answers a fresh key and only the last works', async () => {
    const account = await h.account({ 1: 10 });
    const first = (await generate({ currentApiKey: account.apiKey })).body.apiKey as string;
    const second = (await generate({ currentApiKey: first })).body.apiKey as string;
    expect(second).toMatch(API_KEY);
    expect((await balance(first)).status).toBe(401);
    expect((await balance(second)).status).toBe(200);
    const generation = await h.pool.query('SELECT key_generation FROM accounts WHERE id = $1', [account.id]);
    expect(Number(generation.rows[0].key_generation)).toBe(2);
  });

  it('when tokens were issued before the rotation, then every one of them is revoked, and tokens minted after work', async () => {
    const account = await h.account({ 1: 10 });
    const tokens = [await h.token(account), await h.token(account), await h.token(account, 10800)];
    for (const token of tokens) expect((await balance(token)).status).toBe(200);
    const { body } = await generate({ currentApiKey: account.apiKey });
    for (const token of tokens) {
      expect((await balance(token)).status).toBe(401);
      expect((await h.http.get('/user-service/account-balance').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    }
    expect(body.apiKey).toMatch(API_KEY);
    const fresh = await h.token({ apiKey: body.apiKey as string });
    expect((await balance(fresh)).status).toBe(200);
  });

  it.each([
    ['missing', {}],
    ['empty', { currentApiKey: '' }],
    ['too short', { currentApiKey: 'at_AAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['too long', { currentApiKey: 'at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['with a wrong prefix', { currentApiKey: 'xx_AAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['with a non-alphanumeric character', { currentApiKey: 'at_AAAAAAAAAAAAAAAAAAAAAAAAAAAA-' }],
    ['SQL', { currentApiKey: "at_' OR '1'='1" }],
  ])('when currentApiKey is %s, then 422 "Input correct request parameters."', async (_name, query) => {
    const res = await generate(query);
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual(INPUT_INCORRECT);
  });

  it('when currentApiKey is missing and outputFormat is XML, then the 422 string in XML', async () => {
    const res = await generate({ outputFormat: 'XML' });
    expect(res.status).toBe(422);
    expect(res.text).toBe(`${XML_DECLARATION}<xml><code>422</code><messages>Input correct request parameters.</messages></xml>`);
  });

  it('when currentApiKey is repeated, then 422', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.get(`/user-service/api-key/generate?currentApiKey=${account.apiKey}&currentApiKey=${account.apiKey}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(INPUT_INCORRECT);
  });

  it('when outputFormat is invalid, then 422 with the endpoint string (not the field message) and the key is not rotated', async () => {
    const account = await h.account({ 1: 10 });
    const res = await generate({ currentApiKey: account.apiKey, outputFormat: 'HTML' });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual(INPUT_INCORRECT);
    expect((await balance(account.apiKey)).status).toBe(200);
  });

  it('when a live token is given as currentApiKey, then 422 (a token cannot rotate the key) and nothing changes', async () => {
    const account = await h.account({ 1: 10 });
    const token = await h.token(account);
    const res = await generate({ currentApiKey: token });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(INPUT_INCORRECT);
    expect((await balance(token)).status).toBe(200);
    expect((await balance(account.apiKey)).status).toBe(200);
  });

  it('when the key comes only as Bearer (no currentApiKey), then 422', async () => {
    const account = await h.account({ 1: 10 });
    const res = await h.http.get('/user-service/api-key/generate').set('Authorization', `Bearer ${account.apiKey}`);
    expect(res.status).toBe(422);
    expect((await balance(account.apiKey)).status).toBe(200);
  });

  it('when 10 calls with the same key run concurrently, then exactly one gets 200 and the others 400', async () => {
    const account = await h.account({ 1: 10 });
    const results = await Promise.all(Array.from({ length: 10 }, () => generate({ currentApiKey: account.apiKey })));
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of results.filter((r) => r.status === 400)) expect(res.body).toEqual(NOT_ACTIVE);
    const winner = results.find((res) => res.status === 200)?.body.apiKey as string;
    expect((await balance(winner)).status).toBe(200);
    const rows = await keyRows(account.id);
    expect(rows.filter((row) => row.active)).toEqual([{ key_hash: hashSecret(winner), active: true, deactivated_at: null }]);
    expect(rows).toHaveLength(2);
    // Only the winner changed the access records: the old key's is gone, the winner's has generation 1.
    expect(await h.access.findKey(account.keyHash)).toBeUndefined();
    expect(await h.access.findKey(hashSecret(winner))).toEqual({ accountId: account.id, generation: 1, hasCredits: true });
  });
});

describe('never a secret in the logs', () => {
  it('when keys rotate and tokens are used, then neither the keys nor the token appear in any log line', async () => {
    const logs = captureLogs('user');
    const own = await startHarness({ logger: logs.logger });
    try {
      const account = await own.account({ 1: 10 });
      const token = await own.token(account);
      await own.http.get('/user-service/account-balance').query({ apiKey: token });
      const res = await own.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
      await own.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
      const text = logs.text();
      expect(text).toContain('api key rotated');
      for (const secret of [account.apiKey, res.body.apiKey as string, token]) expect(text).not.toContain(secret);
    } finally {
      await own.stop();
    }
  });
});

describe('when a dependency fails during rotation', () => {
  it('when Redis is unreachable, then 503 with Retry-After, and nothing changed: old key and old tokens still work', async () => {
    await withDependencyProxy('redis', async (own, proxy) => {
      const account = await own.account({ 1: 10 });
      const token = await own.token(account);
      proxy.cut();
      const res = await own.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
      expect(res.body).toEqual({ code: 503, messages: 'Service temporarily unavailable. Try your call again later.' });
      const rows = await own.pool.query('SELECT key_hash, active FROM api_keys WHERE account_id = $1', [account.id]);
      expect(rows.rows).toEqual([{ key_hash: hashSecret(account.apiKey), active: true }]);
      proxy.restore();
      await waitForReady(own);
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: account.apiKey })).status).toBe(200);
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: token })).status).toBe(200);
      expect((await own.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey })).status).toBe(200);
    });
  });

  it('when Postgres fails after the old key record was deleted, then 503; the old key is refused until Postgres returns, then repaired: it and its tokens work and it can rotate', async () => {
    const proxy = await startTcpProxy(Number(new URL(testServers.databaseUrl).port || 5432));
    const redis = new Redis(testServers.redisUrl);
    const real = createRedisAccessStore(redis, { keyPrefix: KEY_PREFIX });
    let failAfterWrite = false;
    const access: AccessStore = {
      ...real,
      // The closing write, made before the commit: the old key's record goes.
      async deleteKeys(keyHashes) {
        await real.deleteKeys(keyHashes);
        if (failAfterWrite) proxy.cut();
      },
    };
    const own = await startHarness({
      config: testConfig({ DATABASE_URL: proxy.url(testServers.databaseUrl) }),
      given: { redis: { access, client: undefined } },
    });
    try {
      const account = await own.account({ 1: 10 });
      const token = await own.token(account);
      failAfterWrite = true;
      const res = await own.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
      failAfterWrite = false;
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
      // Too much revoked while the account cannot be repaired, never too little.
      expect(await real.findKey(account.keyHash)).toBeUndefined();
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: token })).status).toBe(401);
      proxy.restore();
      await eventually(async () => ((await real.findKey(account.keyHash)) ? true : undefined), 10_000, 'the account repaired');
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: token })).status).toBe(200);
      const rows = await own.pool.query('SELECT key_hash, active FROM api_keys WHERE account_id = $1', [account.id]);
      expect(rows.rows).toEqual([{ key_hash: hashSecret(account.apiKey), active: true }]);
      const retry = await own.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
      expect(retry.status).toBe(200);
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: retry.body.apiKey as string })).status).toBe(200);
      expect((await own.http.get('/user-service/account-balance').query({ apiKey: token })).status).toBe(401);
    } finally {
      await own.stop();
      await redis.quit();
      await proxy.close();
    }
  });
});

async function waitForReady(harness: Harness): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await harness.http.get('/health/ready')).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('service did not become ready');
}
