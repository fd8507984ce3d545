import { Redis } from 'ioredis';
import request from 'supertest';
import {
  createCredentialVerifier,
  createRedisAccessStore,
  generateApiKey,
  hashSecret,
  type CredentialVerifier,
} from '@platform/credentials';
import { testServers, type TestAccount } from '@platform/testing';
import { ADMIN_TOKEN, bearerOf, rotateKey, startAuth, type AuthHarness } from './harness';

const JSON_401 = '{"code":401,"messages":"Access restricted. Check credits balance or enter the correct API key."}';

let h: AuthHarness;
let verifier: CredentialVerifier;
beforeAll(async () => {
  h = await startAuth();
  verifier = createCredentialVerifier({ access: h.access });
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
    account = await h.account({ credits: { 1: 100 } });
  });

  test('when the key is replaced, then every earlier token is refused by every check', async () => {
    const tokens = [await issued(account.apiKey), await issued(account.apiKey), await issued(account.apiKey)];
    for (const token of tokens) await expect(verifier.verify(token)).resolves.toMatchObject({ accountId: account.id });

    await rotateKey(h, account, hashSecret(generateApiKey()));

    for (const token of tokens) {
      await expect(verifier.verify(token)).resolves.toBeUndefined();
      expect(await isActive(token)).toBe(false);
    }
  });

  test('when the key was rotated, then the old key gets 401 and the new key gets tokens that work', async () => {
    await issued(account.apiKey);
    const newKey = generateApiKey();
    await rotateKey(h, account, hashSecret(newKey));

    const refused = await issue(account.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(JSON_401);

    const fresh = await issued(newKey);
    await expect(verifier.verify(fresh)).resolves.toMatchObject({ accountId: account.id, kind: 'token' });
    expect(await isActive(fresh)).toBe(true);
  });

  test('when a key’s record carries a higher generation (a rotation that revoked and then failed), then older tokens stay refused and the key mints new ones', async () => {
    const before = await issued(account.apiKey);
    await h.access.putKeys([{ keyHash: account.keyHash, accountId: account.id, generation: 1, creditedPools: [1] }]);
    expect(await isActive(before)).toBe(false);
    const after = await issued(account.apiKey);
    await expect(verifier.verify(after)).resolves.toMatchObject({ accountId: account.id });
  });
});

describe('the issuance path', () => {
  test('when tokens are issued and checked by introspection, then the auth service sends no query to Postgres', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    const query = jest.spyOn(h.pool, 'query');
    const connect = jest.spyOn(h.pool, 'connect');
    try {
      const token = await issued(account.apiKey);
      const grant = await request(h.url)
        .post('/oauth/token')
        .type('form')
        .set('Authorization', `Basic ${Buffer.from(`${account.id}:${account.apiKey}`).toString('base64')}`)
        .send('grant_type=client_credentials');
      expect(grant.status).toBe(200);
      expect(await isActive(token)).toBe(true);
      expect(query).not.toHaveBeenCalled();
      expect(connect).not.toHaveBeenCalled();
    } finally {
      query.mockRestore();
      connect.mockRestore();
    }
  });
});

describe('credits (CONTRACT §3: no cache delays the refusal or the re-allowance)', () => {
  test('when the last pool with credits is marked empty, then the very next issuance is 401; when one is credited, the next one is 200', async () => {
    const account = await h.account({ credits: { 1: 5, 7: 0 } });
    await issued(account.apiKey);
    await h.access.setPoolCredit([account.keyHash], 1, false);
    const refused = await issue(account.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(JSON_401);
    await h.access.setPoolCredit([account.keyHash], 7, true);
    await issued(account.apiKey);
  });
});

describe('expiry', () => {
  test('when a token’s lifetime has passed, then it is refused by the verifier and inactive on introspection', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    const token = await issued(account.apiKey);
    const other = await issued(account.apiKey);
    // Lifetimes are ≥ 30 minutes: let Redis age this one out now, as its TTL would.
    await h.redis.pexpire(h.tokenKey(token), 1);
    await new Promise((resolve) => setTimeout(resolve, 20));

    await expect(verifier.verify(token)).resolves.toBeUndefined();
    expect(await isActive(token)).toBe(false);
    await expect(verifier.verify(other)).resolves.toMatchObject({ accountId: account.id });
  });
});

describe('the credential check every service uses', () => {
  test('when an API key or a token of the account is presented, then both authenticate the account', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    await expect(verifier.verify(account.apiKey)).resolves.toMatchObject({ accountId: account.id, kind: 'apiKey' });
    await expect(verifier.verify(await issued(account.apiKey))).resolves.toMatchObject({ accountId: account.id, kind: 'token' });
  });

  test('when a garbled token is presented, then it is refused without a Redis lookup', async () => {
    const lookup = jest.spyOn(h.access, 'lookupToken');
    const account = await h.account({ credits: { 1: 100 } });
    const token = await issued(account.apiKey);
    const garbled = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    await expect(verifier.verify(garbled)).resolves.toBeUndefined();
    await expect(verifier.verify('tk_short')).resolves.toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
    lookup.mockRestore();
  });

  test('when a token is verified, then it costs one Redis command (one round trip)', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    const token = await issued(account.apiKey);
    const redis = new Redis(testServers.redisUrl);
    try {
      const own = createCredentialVerifier({ access: createRedisAccessStore(redis, { keyPrefix: h.prefix }) });
      await own.verify(token); // loads the script into Redis once
      const sent = jest.spyOn(redis, 'sendCommand');
      await expect(own.verify(token)).resolves.toMatchObject({ accountId: account.id });
      expect(sent).toHaveBeenCalledTimes(1);
    } finally {
      await redis.quit();
    }
  });

  test('when an API key is checked, then it costs one Redis command', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    const redis = new Redis(testServers.redisUrl);
    try {
      const own = createCredentialVerifier({ access: createRedisAccessStore(redis, { keyPrefix: h.prefix }) });
      await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
      const sent = jest.spyOn(redis, 'sendCommand');
      await expect(own.verify(account.apiKey)).resolves.toMatchObject({ accountId: account.id, kind: 'apiKey' });
      expect(sent).toHaveBeenCalledTimes(1);
    } finally {
      await redis.quit();
    }
  });

  test('when the API key was rotated, then the old key is refused by the credential check', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    await rotateKey(h, account, hashSecret(generateApiKey()));
    await expect(verifier.verify(account.apiKey)).resolves.toBeUndefined();
  });
});
