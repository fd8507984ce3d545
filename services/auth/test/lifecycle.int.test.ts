import { Redis } from 'ioredis';
import request from 'supertest';
import {
  createCredentialVerifier,
  createKeyDirectory,
  createRedisTokenStore,
  generateApiKey,
  hashSecret,
  type CredentialVerifier,
} from '@platform/credentials';
import { anAccount, testServers, type TestAccount } from '@platform/testing';
import { ADMIN_TOKEN, bearerOf, rotateKey, startAuth, type AuthHarness } from './harness';

const JSON_401 = '{"code":401,"messages":"Access restricted. Check credits balance or enter the correct API key."}';

let h: AuthHarness;
let verifier: CredentialVerifier;
beforeAll(async () => {
  // A long key cache: rotations must be caught by the generation check, not by the cache expiring.
  h = await startAuth({ env: { KEY_CACHE_MS: '10000' } });
  verifier = createCredentialVerifier({ keys: createKeyDirectory(h.pool), tokens: h.tokens });
});
afterAll(async () => {
  await h.close();
});

const issue = (apiKey: string) =>
  request(h.url).post('/oauth/token').set('Authorization', bearerOf(apiKey)).send({ grantType: 'access_token' });
const issued = async (apiKey: string): Promise<string> => {
  const res = await issue(apiKey);
  expect(res.status).toBe(200);
  return res.body.accessToken as string;
};
const isActive = async (token: string): Promise<boolean> =>
  (await request(h.url).post('/oauth/introspect').type('form').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(`token=${token}`)).body
    .active as boolean;

describe('revocation when the API key is rotated (CONTRACT §3)', () => {
  let account: TestAccount;
  beforeEach(async () => {
    account = await anAccount(h.pool, { credits: { 1: 100 } });
  });

  test('when the account’s generation is bumped and the key replaced, then every earlier token is refused by every check', async () => {
    const tokens = [await issued(account.apiKey), await issued(account.apiKey), await issued(account.apiKey)];
    for (const token of tokens) await expect(verifier.verify(token)).resolves.toMatchObject({ accountId: account.id });

    const newKey = generateApiKey();
    await rotateKey(h, account.id, hashSecret(newKey));

    for (const token of tokens) {
      await expect(verifier.verify(token)).resolves.toBeUndefined();
      expect(await isActive(token)).toBe(false);
    }
  });

  test('when the key was rotated, then the old key (even cached) gets 401 and the new key gets tokens that work', async () => {
    await issued(account.apiKey); // now cached for 10 s
    const newKey = generateApiKey();
    await rotateKey(h, account.id, hashSecret(newKey));

    const refused = await issue(account.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(JSON_401);

    const fresh = await issued(newKey);
    await expect(verifier.verify(fresh)).resolves.toMatchObject({ accountId: account.id, kind: 'token' });
    expect(await isActive(fresh)).toBe(true);
  });

  test('when only the generation is bumped (the rotation’s Postgres commit failed), then old tokens stay revoked and the unchanged key still gets working tokens', async () => {
    const before = await issued(account.apiKey); // cached with generation 0
    await h.tokens.bumpGeneration(account.id, 1);
    expect(await isActive(before)).toBe(false);

    const after = await issued(account.apiKey);
    await expect(verifier.verify(after)).resolves.toMatchObject({ accountId: account.id });
    expect(await h.tokens.currentGeneration(account.id)).toBe(1);
  });

  test('when a rotation is in progress (rows locked, generation bumped, not committed), then issuance is refused; after its rollback the key works again', async () => {
    await issued(account.apiKey);
    const client = await h.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        'SELECT 1 FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.account_id = $1 AND k.active FOR UPDATE',
        [account.id],
      );
      await h.tokens.bumpGeneration(account.id, 1);

      const during = await issue(account.apiKey);
      expect(during.status).toBe(401);
      expect(during.text).toBe(JSON_401);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    await issued(account.apiKey);
  });

  test('when Redis has lost the generation, then minting restores it from Postgres and later rotations still revoke', async () => {
    await h.pool.query('UPDATE accounts SET key_generation = 5 WHERE id = $1', [account.id]);
    await h.redis.del(`${h.prefix}gen:${account.id}`);
    const token = await issued(account.apiKey);
    expect(await h.tokens.currentGeneration(account.id)).toBe(5);

    await rotateKey(h, account.id, hashSecret(generateApiKey()));
    expect(await isActive(token)).toBe(false);
  });

  test('when a generation key exists, then it expires (no key lives forever) but outlives the longest token', async () => {
    await issued(account.apiKey);
    const ttl = await h.redis.ttl(`${h.prefix}gen:${account.id}`);
    expect(ttl).toBeGreaterThan(10800);
    await h.tokens.bumpGeneration(account.id, 1);
    expect(await h.redis.ttl(`${h.prefix}gen:${account.id}`)).toBeGreaterThan(10800);
  });
});

describe('expiry', () => {
  test('when a token’s lifetime has passed, then it is refused by the verifier and inactive on introspection', async () => {
    const account = await anAccount(h.pool, { credits: { 1: 100 } });
    const token = await issued(account.apiKey);
    const other = await issued(account.apiKey);
    // Lifetimes are ≥ 30 minutes: let Redis age this one out now, as its TTL would.
    await h.redis.pexpire(`${h.prefix}tok:${hashSecret(token)}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));

    await expect(verifier.verify(token)).resolves.toBeUndefined();
    expect(await isActive(token)).toBe(false);
    await expect(verifier.verify(other)).resolves.toMatchObject({ accountId: account.id });
  });
});

describe('the credential check every service uses', () => {
  test('when an API key or a token of the account is presented, then both authenticate the account', async () => {
    const account = await anAccount(h.pool, { credits: { 1: 100 } });
    await expect(verifier.verify(account.apiKey)).resolves.toMatchObject({ accountId: account.id, kind: 'apiKey' });
    await expect(verifier.verify(await issued(account.apiKey))).resolves.toMatchObject({ accountId: account.id, kind: 'token' });
  });

  test('when a garbled token is presented, then it is refused without a Redis lookup', async () => {
    const lookup = jest.spyOn(h.tokens, 'lookup');
    const account = await anAccount(h.pool, { credits: { 1: 100 } });
    const token = await issued(account.apiKey);
    const garbled = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    await expect(verifier.verify(garbled)).resolves.toBeUndefined();
    await expect(verifier.verify('tk_short')).resolves.toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
    lookup.mockRestore();
  });

  test('when a token is verified, then it costs one Redis command (one round trip)', async () => {
    const account = await anAccount(h.pool, { credits: { 1: 100 } });
    const token = await issued(account.apiKey);
    const redis = new Redis(testServers.redisUrl);
    try {
      const own = createCredentialVerifier({
        keys: createKeyDirectory(h.pool),
        tokens: createRedisTokenStore(redis, { keyPrefix: h.prefix }),
      });
      await own.verify(token); // loads the script into Redis once
      const sent = jest.spyOn(redis, 'sendCommand');
      await expect(own.verify(token)).resolves.toMatchObject({ accountId: account.id });
      expect(sent).toHaveBeenCalledTimes(1);
    } finally {
      await redis.quit();
    }
  });

  test('when the API key was rotated, then the old key is refused by the credential check', async () => {
    const account = await anAccount(h.pool, { credits: { 1: 100 } });
    await rotateKey(h, account.id, hashSecret(generateApiKey()));
    await expect(verifier.verify(account.apiKey)).resolves.toBeUndefined();
  });
});
