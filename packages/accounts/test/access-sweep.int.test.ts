/**
 * The sweep of a full reconciliation (reconcileAll) on a real single Redis and a real Redis
 * Cluster, against a real Postgres of the test's own: what Redis holds of keys Postgres does not
 * know as active (records, tokens, token sets, issuance windows of keys made after a restore
 * point, or replaced since) goes from every master; what Postgres knows as active stays.
 */
import type { Pool } from 'pg';
import { createPool, migrate } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import {
  accessLayout,
  closeRedis,
  connectRedis,
  createRedisAccessStore,
  generateAccessToken,
  generateApiKey,
  hashSecret,
  type AccessStore,
  type RedisClient,
} from '@platform/credentials';
import {
  anAccount,
  createPrivateDatabase,
  deleteKeys,
  silentLogger,
  startRedisCluster,
  testServers,
  uniqueId,
  type LocalRedisCluster,
  type PrivateDatabase,
} from '@platform/testing';
import { reconcileAll } from '../src';

const KEYS_PER_KIND = 24;
const LIMIT = { points: 100, windowSeconds: 60 };

describe.each(['single Redis', 'Redis Cluster'] as const)('reconcileAll on a %s', (on) => {
  let database: PrivateDatabase;
  let pool: Pool;
  let cluster: LocalRedisCluster | undefined;
  let redis: RedisClient;
  let store: AccessStore;
  const prefix = `test:sweep:${uniqueId()}:`;
  const layout = accessLayout(prefix);

  beforeAll(async () => {
    database = await createPrivateDatabase('access_sweep');
    pool = createPool({ connectionString: database.url, logger: silentLogger(), max: 4 });
    await migrate(pool, [userMigrations], silentLogger());
    if (on === 'Redis Cluster') cluster = await startRedisCluster({ dir: `/tmp/redis-cluster-access-sweep-${process.pid}` });
    redis = await connectRedis(cluster ? { clusterNodes: cluster.nodes } : { url: testServers.redisUrl }, silentLogger());
    store = createRedisAccessStore(redis, { keyPrefix: prefix });
  }, 60_000);
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await closeRedis(redis);
    await cluster?.stop();
    await pool.end();
    await database.drop();
  });

  /** A key's record with a token minted from it (and so its token set and issuance window). */
  const withToken = async (keyHash: string, accountId: number): Promise<string> => {
    await store.putKeys([{ keyHash, accountId, generation: 0, creditedPools: [1] }]);
    const token = generateAccessToken(keyHash);
    const issued = await store.issue({ keyHash, token, issuedAt: Math.floor(Date.now() / 1000), ttlSeconds: 600, limit: LIMIT });
    expect(issued).toMatchObject({ outcome: 'issued' });
    return token;
  };
  const namesOf = (keyHash: string): string[] => [layout.keyRecord(keyHash), layout.keyTokens(keyHash), layout.issuanceWindow(keyHash)];
  const existing = async (names: string[]): Promise<string[]> =>
    (await Promise.all(names.map(async (name) => ((await redis.exists(name)) === 1 ? name : undefined)))).filter(
      (name): name is string => name !== undefined,
    );

  test('when Redis holds keys Postgres never knew or knows as replaced, then everything of theirs goes from every master, and the active keys stay', async () => {
    const active = await Promise.all(Array.from({ length: KEYS_PER_KIND }, () => anAccount(pool, { credits: { 1: 5 } })));
    const activeTokens = await Promise.all(active.map((account) => withToken(account.keyHash, account.id)));
    // Keys made after the restore point: in Redis only.
    const unknown = Array.from({ length: KEYS_PER_KIND }, () => hashSecret(generateApiKey()));
    const unknownTokens = await Promise.all(unknown.map((keyHash, index) => withToken(keyHash, (active[index]?.id ?? 0) + 10_000)));
    // Keys Postgres knows as replaced (a restored Redis snapshot may hold them).
    const replaced = active.slice(0, 4).map((account) => account.keyHash);
    await pool.query('UPDATE api_keys SET active = false WHERE key_hash = ANY($1)', [replaced]);
    if (cluster) {
      // The keys to remove live on every master: a sweep of one node would leave some.
      const masters = new Set(
        await Promise.all(unknown.map(async (keyHash) => (await cluster?.masterOf(layout.keyRecord(keyHash)))?.address)),
      );
      expect(masters.size).toBe(3);
    }

    const report = await reconcileAll(pool, store, 10);

    expect(report).toEqual({ activeKeys: KEYS_PER_KIND - replaced.length, removedKeys: unknown.length + replaced.length });
    expect(await existing([...unknown, ...replaced].flatMap(namesOf))).toEqual([]);
    for (const token of unknownTokens) expect(await store.lookupToken(token)).toBeUndefined();
    for (const token of activeTokens.slice(0, replaced.length)) expect(await store.lookupToken(token)).toBeUndefined();
    for (const [offset, account] of active.slice(replaced.length).entries()) {
      expect(await store.findKey(account.keyHash)).toEqual({ accountId: account.id, generation: 0, hasCredits: true });
      const token = activeTokens[replaced.length + offset] as string;
      expect(await store.lookupToken(token)).toMatchObject({ accountId: account.id, generation: 0 });
    }
  }, 60_000);
});
