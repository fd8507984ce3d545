/**
 * The Postgres restore procedure of docs/operations.md ("Postgres: backup and restore"), run as
 * written against a real Postgres and a real Redis of the test's own (CONTRACT §3: a restore to
 * an earlier point is a loss, seen from Redis). Before the dump: accounts with keys, credits and
 * tokens. After it (the lost timeline): a rotation K1 → K2, a new account B, debits to 0, a
 * top-up from 0, tokens minted from K2 and B's key. Redis keeps all of it. Then: stop the
 * services, pg_restore into a fresh database, `pnpm admin reconcile --all`, start the services.
 * Nothing the restored database does not know as current verifies, the credits are the restored
 * ones, and a rotation after the restore revives nothing. The second case leaves the command
 * out: the services see the database's identity changed and reconcile by themselves at start.
 * The third runs the procedure on a Redis Cluster (the keys to remove live on three masters).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectRedis, createRedisAccessStore, hashSecret, type RedisClient } from '@platform/credentials';
import {
  createPrivateDatabase,
  silentLogger,
  startPrivateRedis,
  startRedisCluster,
  uniqueId,
  type PrivateDatabase,
} from '@platform/testing';
import { adminReconcileAll, drillCalls, pgDump, pgRestore, startServices, type DrillServices, type DrillTarget } from './drill';

const REFUSED = { user: 401, categorization: 401, introspection: false };

/** A Redis of the test's own: one server, or a cluster of three masters (the sweep must reach each). */
interface DrillRedis {
  target: DrillTarget['redis'];
  connect(): Promise<RedisClient>;
  close(): Promise<void>;
}

async function startDrillRedis(on: 'redis' | 'cluster'): Promise<DrillRedis> {
  if (on === 'cluster') {
    const cluster = await startRedisCluster({ dir: `/tmp/redis-cluster-restore-drill-${process.pid}` });
    return {
      target: { REDIS_CLUSTER_NODES: cluster.seeds },
      connect: () => connectRedis({ clusterNodes: cluster.nodes }, silentLogger()),
      close: () => cluster.stop(),
    };
  }
  const server = await startPrivateRedis();
  return { target: { REDIS_URL: server.url }, connect: () => connectRedis(server.url, silentLogger()), close: () => server.close() };
}

describe.each([
  ['the procedure as written (pnpm admin reconcile --all)', true, 'redis'],
  ['the services alone, started against the restored database', false, 'redis'],
  ['the procedure as written, on a Redis Cluster', true, 'cluster'],
] as const)('a Postgres restored from a dump taken before a rotation, a new account and some spending: %s', (_name, runCommand, on) => {
  let redis: DrillRedis;
  let dir: string;
  const databases: PrivateDatabase[] = [];
  const running: DrillServices[] = [];

  beforeAll(async () => {
    redis = await startDrillRedis(on);
    dir = mkdtempSync(path.join(os.tmpdir(), 'restore-drill-'));
  }, 60_000);
  afterAll(async () => {
    for (const services of running) await services.stop();
    for (const database of databases) await database.drop();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (target: DrillTarget): Promise<ReturnType<typeof drillCalls>> => {
    const services = await startServices(target);
    running.push(services);
    return drillCalls(services);
  };
  /** The access records Redis holds for these keys (absent ones left out), read by a store of the test's own. */
  const keysInRedis = async (keyPrefix: string, keys: Record<string, string>): Promise<Record<string, unknown>> => {
    const client = await redis.connect();
    const store = createRedisAccessStore(client, { keyPrefix });
    try {
      const found: Record<string, unknown> = {};
      for (const [name, apiKey] of Object.entries(keys)) {
        const key = await store.findKey(hashSecret(apiKey));
        if (key) found[name] = key;
      }
      return found;
    } finally {
      await store.close();
    }
  };
  const stop = async (): Promise<void> => {
    await running.pop()?.stop();
  };

  test('then no key or token the restored database does not know as current verifies, credits are the restored ones, and a later rotation revives nothing', async () => {
    const source = await createPrivateDatabase('drill_source');
    databases.push(source);
    const target: DrillTarget = { databaseUrl: source.url, redis: redis.target, redisKeyPrefix: `drill:${uniqueId()}:` };
    let calls = await start(target);

    // Before the dump: A (key K1), S (spends after the dump), Z (at 0 at the dump, topped up after).
    const a = await calls.createAccount({ 1: 100 });
    const s = await calls.createAccount({ 1: 3 });
    const z = await calls.createAccount({ 1: 1 });
    expect((await calls.debit(z.apiKey, 1)).body).toMatchObject({ credits: 0 });
    expect((await calls.mint(z.apiKey)).status).toBe(401);

    const dump = path.join(dir, 'platform.dump');
    await pgDump(source.url, dump);

    // The lost timeline: answered, and in Redis.
    const rotation = await calls.rotate(a.apiKey);
    expect(rotation.status).toBe(200);
    const k2 = rotation.body.apiKey as string;
    const b = await calls.createAccount({ 1: 50 });
    const k2Token = (await calls.mint(k2)).body.accessToken as string;
    const bToken = (await calls.mint(b.apiKey)).body.accessToken as string;
    expect((await calls.debit(s.apiKey, 3)).body).toMatchObject({ credits: 0 });
    expect((await calls.topUp(z.id, 5)).status).toBe(200);
    expect(await calls.seenBy(k2Token)).toEqual({ user: 200, categorization: 200, introspection: true });
    expect(await calls.seenBy(bToken)).toEqual({ user: 200, categorization: 200, introspection: true });
    expect((await calls.mint(s.apiKey)).status).toBe(401);
    expect((await calls.mint(z.apiKey)).status).toBe(200);

    // The procedure: stop every service, restore into a fresh database, reconcile, start.
    await stop();
    const restored = await createPrivateDatabase('drill_restored');
    databases.push(restored);
    await pgRestore(dump, restored.url);
    const restoredTarget: DrillTarget = { ...target, databaseUrl: restored.url };
    if (runCommand) {
      expect(await adminReconcileAll(restoredTarget)).toMatchObject({ removedKeys: 2 });
      // Before any service starts, Redis already agrees with the restored database.
      expect(await keysInRedis(target.redisKeyPrefix, { k1: a.apiKey, k2, b: b.apiKey, z: z.apiKey })).toEqual({
        k1: { accountId: a.id, generation: 0, hasCredits: true },
        z: { accountId: z.id, generation: 0, hasCredits: false },
      });
    }
    calls = await start(restoredTarget);

    // Keys and tokens the restored database does not know as current: refused everywhere.
    for (const key of [k2, b.apiKey]) {
      expect((await calls.balance(key)).status).toBe(401);
      expect((await calls.mint(key)).status).toBe(401);
    }
    expect(await calls.seenBy(k2Token)).toEqual(REFUSED);
    expect(await calls.seenBy(bToken)).toEqual(REFUSED);

    // K1 is current again; credits are the restored ones (S's spending undone, Z's top-up too).
    expect((await calls.balance(a.apiKey)).status).toBe(200);
    expect((await calls.mint(a.apiKey)).status).toBe(200);
    expect(await calls.credits(s.apiKey)).toBe(3);
    expect((await calls.mint(s.apiKey)).status).toBe(200);
    expect(await calls.credits(z.apiKey)).toBe(0);
    expect((await calls.mint(z.apiKey)).status).toBe(401);

    // A rotation after the restore gives K3 the generation the lost rotation gave K2: K2's tokens
    // still name K2, whose record is gone, so they stay refused.
    const k1Token = (await calls.mint(a.apiKey)).body.accessToken as string;
    const again = await calls.rotate(a.apiKey);
    expect(again.status).toBe(200);
    const k3 = again.body.apiKey as string;
    const k3Token = (await calls.mint(k3)).body.accessToken as string;
    expect(await calls.seenBy(k3Token)).toEqual({ user: 200, categorization: 200, introspection: true });
    expect(await calls.seenBy(k2Token)).toEqual(REFUSED);
    expect(await calls.seenBy(k1Token)).toEqual(REFUSED);
    expect((await calls.mint(k2)).status).toBe(401);
  }, 90_000);
});
