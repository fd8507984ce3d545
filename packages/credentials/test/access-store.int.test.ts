import { Redis } from 'ioredis';
import { deleteKeys, silentLogger, startRedisCluster, testServers, uniqueId, type LocalRedisCluster } from '@platform/testing';
import {
  accessLayout,
  closeRedis,
  connectRedis,
  createMemoryAccessStore,
  createRedisAccessStore,
  generateAccessToken,
  generateApiKey,
  hashSecret,
  type AccessStore,
  type IssueRequest,
  type RedisClient,
} from '../src';

// The same rules on both stores: Redis (services) and memory (embedded quickstart).

const NOW_SECONDS = Math.floor(Date.now() / 1000);
const LIMIT = { points: 3, windowSeconds: 60 };

interface Subject {
  store: AccessStore;
  close(): Promise<void>;
}

function redisSubject(): Promise<Subject & { redis: Redis; prefix: string }> {
  const redis = new Redis(testServers.redisUrl);
  const prefix = `test:access:${uniqueId()}:`;
  return Promise.resolve({
    redis,
    prefix,
    store: createRedisAccessStore(redis, { keyPrefix: prefix }),
    async close() {
      await deleteKeys(redis, prefix);
      await redis.quit();
    },
  });
}

// One real Redis Cluster (3 masters, 3 replicas) for the whole file: the same rules on it.
let cluster: { nodes: LocalRedisCluster; client: RedisClient } | undefined;

async function clusterSubject(): Promise<Subject & { redis: RedisClient; prefix: string }> {
  if (!cluster) {
    const nodes = await startRedisCluster({ dir: `/tmp/redis-cluster-access-store-${process.pid}` });
    cluster = { nodes, client: await connectRedis({ clusterNodes: nodes.nodes }, silentLogger()) };
  }
  const { client } = cluster;
  const prefix = `test:access:${uniqueId()}:`;
  return { redis: client, prefix, store: createRedisAccessStore(client, { keyPrefix: prefix }), close: () => deleteKeys(client, prefix) };
}

afterAll(async () => {
  if (cluster) await closeRedis(cluster.client);
  await cluster?.nodes.stop();
}, 30_000);

function memorySubject(): Subject {
  const store = createMemoryAccessStore();
  return { store, close: () => store.close() };
}

function aKey(): { apiKey: string; keyHash: string } {
  const apiKey = generateApiKey();
  return { apiKey, keyHash: hashSecret(apiKey) };
}

function issueRequest(keyHash: string, overrides: Partial<IssueRequest> = {}): IssueRequest {
  return { keyHash, token: generateAccessToken(keyHash), issuedAt: NOW_SECONDS, ttlSeconds: 1800, limit: LIMIT, ...overrides };
}

describe.each([
  ['redis', redisSubject],
  ['redis cluster', clusterSubject],
  ['memory', () => Promise.resolve(memorySubject())],
])('%s access store', (_name, open: () => Promise<Subject>) => {
  let subject: Subject;
  let store: AccessStore;
  beforeEach(async () => {
    subject = await open();
    store = subject.store;
  }, 60_000);
  afterEach(async () => {
    await subject.close();
  });

  test('when a key with credits issues, then its token verifies with the key’s account, generation and times', async () => {
    const { keyHash } = aKey();
    await store.putKeys([{ keyHash, accountId: 7, generation: 2, creditedPools: [1, 14] }]);
    const request = issueRequest(keyHash);
    expect(await store.issue(request)).toEqual({ outcome: 'issued', accountId: 7, generation: 2 });
    expect(await store.lookupToken(request.token)).toEqual({
      accountId: 7,
      generation: 2,
      issuedAt: NOW_SECONDS,
      expiresAt: NOW_SECONDS + 1800,
      keyHash,
    });
    expect(await store.findKey(keyHash)).toEqual({ accountId: 7, generation: 2, hasCredits: true });
  });

  test('when the key is unknown or names another account than the client_id, then nothing is issued', async () => {
    const { keyHash } = aKey();
    const unknown = issueRequest(keyHash);
    expect(await store.issue(unknown)).toEqual({ outcome: 'unknown_key' });
    await store.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
    const other = issueRequest(keyHash, { accountId: 8 });
    expect(await store.issue(other)).toEqual({ outcome: 'unknown_key' });
    expect(await store.issue(issueRequest(keyHash, { accountId: 7 }))).toMatchObject({ outcome: 'issued' });
    expect(await store.lookupToken(unknown.token)).toBeUndefined();
    expect(await store.lookupToken(other.token)).toBeUndefined();
  });

  test('when the last pool with credits is marked empty, then issuance is refused; when one is credited again, it is allowed', async () => {
    const { keyHash } = aKey();
    await store.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1, 7] }]);
    await store.setPoolCredit([keyHash], 1, false);
    expect(await store.issue(issueRequest(keyHash))).toMatchObject({ outcome: 'issued' });
    await store.setPoolCredit([keyHash], 7, false);
    const refused = issueRequest(keyHash);
    expect(await store.issue(refused)).toEqual({ outcome: 'no_credits' });
    expect(await store.lookupToken(refused.token)).toBeUndefined();
    expect(await store.findKey(keyHash)).toEqual({ accountId: 7, generation: 0, hasCredits: false });
    await store.setPoolCredit([keyHash], 14, true);
    expect(await store.issue(issueRequest(keyHash))).toMatchObject({ outcome: 'issued' });
  });

  test('when several keys are found at once, then each answers as findKey does, in order, the unknown and deleted ones undefined', async () => {
    const [credited, empty, deleted, unknown] = [aKey(), aKey(), aKey(), aKey()];
    await store.putKeys([
      { keyHash: credited.keyHash, accountId: 7, generation: 2, creditedPools: [1] },
      { keyHash: empty.keyHash, accountId: 8, generation: 0, creditedPools: [] },
      { keyHash: deleted.keyHash, accountId: 9, generation: 0, creditedPools: [1] },
    ]);
    await store.deleteKeys([deleted.keyHash]);
    const hashes = [credited, empty, deleted, unknown, credited].map((key) => key.keyHash);
    const found = await store.findKeys(hashes);
    expect(found).toEqual([
      { accountId: 7, generation: 2, hasCredits: true },
      { accountId: 8, generation: 0, hasCredits: false },
      undefined,
      undefined,
      { accountId: 7, generation: 2, hasCredits: true },
    ]);
    expect(found).toEqual(await Promise.all(hashes.map((keyHash) => store.findKey(keyHash))));
    expect(await store.findKeys([])).toEqual([]);
  });

  test('when a pool is marked for a key that has no record, then no record is made', async () => {
    const { keyHash } = aKey();
    await store.setPoolCredit([keyHash], 1, true);
    expect(await store.findKey(keyHash)).toBeUndefined();
  });

  test('when a key’s record is deleted, then the key issues nothing and every token minted from it is refused', async () => {
    const { keyHash } = aKey();
    await store.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
    const request = issueRequest(keyHash);
    await store.issue(request);
    await store.deleteKeys([keyHash]);
    expect(await store.lookupToken(request.token)).toBeUndefined();
    expect(await store.findKey(keyHash)).toBeUndefined();
    expect(await store.issue(issueRequest(keyHash))).toEqual({ outcome: 'unknown_key' });
  });

  test('when a key’s record is deleted, then its tokens are gone too: putting the record back does not bring them back', async () => {
    const { keyHash } = aKey();
    const record = { keyHash, accountId: 7, generation: 0, creditedPools: [1] };
    await store.putKeys([record]);
    const requests = [issueRequest(keyHash), issueRequest(keyHash), issueRequest(keyHash)];
    for (const request of requests) await store.issue(request);
    await store.deleteKeys([keyHash]);
    await store.putKeys([record]);
    for (const request of requests) expect(await store.lookupToken(request.token)).toBeUndefined();
  });

  test('when a rotation carries the window to the new key, then the account’s issuances count on across the rotation', async () => {
    const [old, next, fresh] = [aKey(), aKey(), aKey()];
    await store.putKeys([{ keyHash: old.keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
    for (let index = 0; index < LIMIT.points; index += 1)
      expect(await store.issue(issueRequest(old.keyHash))).toMatchObject({ outcome: 'issued' });
    await store.deleteKeys([old.keyHash]);
    await store.carryIssuanceWindow(old.keyHash, next.keyHash);
    await store.carryIssuanceWindow(fresh.keyHash, old.keyHash); // no window to carry: nothing changes
    await store.putKeys([{ keyHash: next.keyHash, accountId: 7, generation: 1, creditedPools: [1] }]);
    const outcome = await store.issue(issueRequest(next.keyHash));
    expect(outcome).toEqual({ outcome: 'limited', msBeforeNext: expect.any(Number) as unknown });
    expect((outcome as { msBeforeNext: number }).msBeforeNext).toBeGreaterThan(50_000);
    expect((outcome as { msBeforeNext: number }).msBeforeNext).toBeLessThanOrEqual(60_000);
  });

  test('when a record is put again, then its generation never goes down, and a higher one refuses the tokens of the lower', async () => {
    const { keyHash } = aKey();
    await store.putKeys([{ keyHash, accountId: 7, generation: 4, creditedPools: [1] }]);
    const before = issueRequest(keyHash);
    await store.issue(before);
    await store.putKeys([{ keyHash, accountId: 7, generation: 3, creditedPools: [] }]);
    expect(await store.findKey(keyHash)).toEqual({ accountId: 7, generation: 4, hasCredits: false });
    expect(await store.lookupToken(before.token)).toMatchObject({ generation: 4 });
    await store.putKeys([{ keyHash, accountId: 7, generation: 5, creditedPools: [1] }]);
    expect(await store.lookupToken(before.token)).toBeUndefined();
  });

  test('when a key issues more than its limit in a window, then the rest are refused with the time left, and write no token', async () => {
    const { keyHash } = aKey();
    await store.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
    for (let index = 0; index < LIMIT.points; index += 1)
      expect(await store.issue(issueRequest(keyHash))).toMatchObject({ outcome: 'issued' });
    const refused = issueRequest(keyHash);
    const outcome = await store.issue(refused);
    expect(outcome).toEqual({ outcome: 'limited', msBeforeNext: expect.any(Number) as unknown });
    expect((outcome as { msBeforeNext: number }).msBeforeNext).toBeGreaterThan(55_000);
    expect((outcome as { msBeforeNext: number }).msBeforeNext).toBeLessThanOrEqual(60_000);
    expect(await store.lookupToken(refused.token)).toBeUndefined();
  });

  test('when one token is revoked, then it alone is refused', async () => {
    const { keyHash } = aKey();
    await store.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
    const [first, second] = [issueRequest(keyHash), issueRequest(keyHash)];
    await store.issue(first);
    await store.issue(second);
    await store.revokeToken(first.token);
    expect(await store.lookupToken(first.token)).toBeUndefined();
    expect(await store.lookupToken(second.token)).toMatchObject({ accountId: 7 });
  });

  test('when reconciled, then the store says for which server; its identity stays while it lives', async () => {
    const first = await store.identity();
    // A cluster's: the run_ids of its masters.
    expect(first.serverId).toMatch(/^[A-Za-z0-9-]+(,[0-9a-f]+)*$/);
    expect(first.reconciledFor).toBeUndefined();
    await store.markReconciled(first.serverId);
    expect(await store.identity()).toEqual({ serverId: first.serverId, reconciledFor: first.serverId });
  });
});

describe.each([
  ['redis', redisSubject],
  ['redis cluster', clusterSubject],
])('%s access store, bounded memory (CONTRACT §3)', (_name, open: () => Promise<Subject & { redis: RedisClient; prefix: string }>) => {
  test('when a key issues, then its token set holds only its live tokens and lives as long as the longest', async () => {
    const subject = await open();
    try {
      const { keyHash } = aKey();
      const tokens = accessLayout(subject.prefix).keyTokens(keyHash);
      await subject.store.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
      // Two tokens whose lifetime ended an hour ago (their records expire by themselves), then a live one.
      await subject.store.issue(issueRequest(keyHash, { issuedAt: NOW_SECONDS - 3600, ttlSeconds: 5 }));
      await subject.store.issue(issueRequest(keyHash, { issuedAt: NOW_SECONDS - 3600, ttlSeconds: 5 }));
      expect(await subject.redis.zcard(tokens)).toBe(2);
      await subject.store.issue(issueRequest(keyHash));
      expect(await subject.redis.zcard(tokens)).toBe(1);
      expect(await subject.redis.ttl(tokens)).toBeGreaterThan(1790);
      await subject.store.deleteKeys([keyHash]);
      expect(await subject.redis.exists(tokens)).toBe(0);
    } finally {
      await subject.close();
    }
  }, 60_000);
});

describe('redis access store, Redis Cluster rule (CONTRACT §1)', () => {
  test('when a key issues and its token is checked, then every key touched carries the key’s hash tag (one hash slot)', async () => {
    const subject = await redisSubject();
    try {
      const { keyHash } = aKey();
      await subject.store.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
      const request = issueRequest(keyHash);
      await subject.store.issue(request);
      expect(await subject.store.lookupToken(request.token)).toBeDefined();
      const names: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await subject.redis.scan(cursor, 'MATCH', `${subject.prefix}*`, 'COUNT', 1000);
        names.push(...found);
        cursor = next;
      } while (cursor !== '0');
      expect(names).toHaveLength(4); // key record, token, the key's token set, issuance window
      for (const name of names) expect(/\{([^}]*)\}/.exec(name)?.[1]).toBe(keyHash.slice(0, 4));
      expect(await subject.redis.ttl(names.find((name) => name.includes(':tok:')) as string)).toBeGreaterThan(1790);
    } finally {
      await subject.close();
    }
  });

  test('when Redis is not reachable, then finding keys at once fails (a check answers 503, never an unknown key)', async () => {
    const unreachable = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    try {
      const store = createRedisAccessStore(unreachable, { keyPrefix: `test:access:${uniqueId()}:` });
      await expect(store.findKeys([aKey().keyHash, aKey().keyHash])).rejects.toThrow(/writeable/);
    } finally {
      unreachable.disconnect();
    }
  });

  test('when Redis does not know a script (after a restart), then the store sends its source and goes on', async () => {
    const subject = await redisSubject();
    try {
      // A client whose EVALSHA answers NOSCRIPT, as a restarted Redis would (SCRIPT FLUSH would disturb other tests).
      const forgetful = Object.create(subject.redis) as Redis;
      forgetful.evalsha = () => Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
      const evalSpy = jest.spyOn(forgetful, 'eval');
      const restarted = createRedisAccessStore(forgetful, { keyPrefix: subject.prefix });
      const { keyHash } = aKey();
      await restarted.putKeys([{ keyHash, accountId: 7, generation: 0, creditedPools: [1] }]);
      const request = issueRequest(keyHash);
      expect(await restarted.issue(request)).toMatchObject({ outcome: 'issued' });
      expect(await restarted.lookupToken(request.token)).toMatchObject({ accountId: 7 });
      expect(evalSpy).toHaveBeenCalledTimes(3);
    } finally {
      await subject.close();
    }
  });
});
