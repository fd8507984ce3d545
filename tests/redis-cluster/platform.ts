import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { closeRedis, connectRedis, signServiceJwt, type RedisClient } from '@platform/credentials';
import { readyBody, silentLogger, startRedisCluster, testServers, uniqueId, type LocalRedisCluster } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';

export const ADMIN_TOKEN = 'redis-cluster-test-admin-token-0123456789';
const SERVICE_JWT_SECRET = 'redis-cluster-test-service-jwt-secret-0123456789';
/** Issuances per account and minute in these tests (TOKEN_RATE_PER_ACCOUNT). */
export const TOKEN_RATE = 6;
/** Failed attempts per address and minute of the strict auth service (AUTH_FAILURES_PER_IP). */
export const STRICT_FAILURES = 3;

/** The three HTTP services on a real Redis Cluster (REDIS_CLUSTER_NODES) or the shared Redis (REDIS_URL), and a private database. */
export interface ClusterPlatform {
  /** Undefined on the single Redis. */
  cluster: LocalRedisCluster | undefined;
  /** A client of the test's own (to look at keys, and the services' reconciliation marker). */
  redis: RedisClient;
  prefix: string;
  auth: string;
  /** An auth service with a small AUTH_FAILURES_PER_IP (its failure counters on the cluster). */
  strictAuth: string;
  user: string;
  categorization: string;
  stop(): Promise<void>;
}

/** `nodeTimeoutMs`: the cluster's cluster-node-timeout (startRedisCluster's default unless given). */
export async function startClusterPlatform(
  label: string,
  on: 'cluster' | 'single redis' = 'cluster',
  { nodeTimeoutMs }: { nodeTimeoutMs?: number } = {},
): Promise<ClusterPlatform> {
  const cluster =
    on === 'cluster'
      ? await startRedisCluster({ dir: `/tmp/redis-cluster-${label}-${process.pid}`, ...(nodeTimeoutMs ? { nodeTimeoutMs } : {}) })
      : undefined;
  const redis = await connectRedis(cluster ? { clusterNodes: cluster.nodes } : { url: testServers.redisUrl }, silentLogger());
  let platform: Platform | undefined;
  const stop = async (): Promise<void> => {
    // The services, the keys (on the shared Redis), the database; then the test's client and cluster.
    await platform?.stop();
    await closeRedis(redis);
    await cluster?.stop();
  };
  try {
    platform = await startPlatform({
      name: label,
      services: ['user', 'categorization', 'auth'],
      bus: 'in-process',
      env: {
        ...(cluster ? { REDIS_CLUSTER_NODES: cluster.seeds } : {}),
        ADMIN_TOKEN,
        SERVICE_JWT_SECRET,
        TOKEN_RATE_PER_ACCOUNT: String(TOKEN_RATE),
        AUTH_URL: 'http://auth.redis-cluster.test',
      },
    });
    const prefix = platform.prefix;
    // Its own key prefix: its failure counters are its own, not shared with the other auth service's.
    const strictAuth = await platform.another('auth', {
      AUTH_FAILURES_PER_IP: String(STRICT_FAILURES),
      REDIS_KEY_PREFIX: `${prefix}strict:`,
    });
    const [user, categorization, auth] = [platform.url('user'), platform.url('categorization'), platform.url('auth')];
    // Each service answers once its access store is checked (and, for the first, reconciled).
    for (const url of [user, categorization, auth, strictAuth]) await readyBody(url);
    return { cluster, redis, prefix, auth, strictAuth, user, categorization, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface FlowPlatform {
  platform: ClusterPlatform;
  calls: ReturnType<typeof client>;
}

/**
 * The platform of a test file (startClusterPlatform's arguments), started before its tests and
 * stopped after them; the function answered gives it, with its client, once started.
 */
export function useClusterPlatform(
  label: string,
  on: 'cluster' | 'single redis',
  timeoutMs: number,
  options: { nodeTimeoutMs?: number } = {},
): () => FlowPlatform {
  let started: FlowPlatform | undefined;
  beforeAll(async () => {
    const platform = await startClusterPlatform(label, on, options);
    started = { platform, calls: client(platform) };
  }, timeoutMs);
  afterAll(async () => {
    await started?.platform.stop();
  }, 30_000);
  return () => {
    if (started === undefined) throw new Error(`the ${label} platform has not started`);
    return started;
  };
}

/** HTTP calls of the contract flows against one platform. */
export function client(platform: ClusterPlatform) {
  const { auth, user, categorization } = platform;
  return {
    createAccount: (credits: Record<string, number>) =>
      request(user)
        .post('/admin/v1/accounts')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ email: `${uniqueId('cluster')}@example.test`, credits }),
    mint: (apiKey: string, base = auth) =>
      request(base)
        .post('/oauth/token')
        .set('Authorization', `Bearer ${Buffer.from(apiKey).toString('base64')}`)
        .send({ grantType: 'access_token', expiresIn: 1800 }),
    balance: (token: string) => request(user).get('/user-service/account-balance').set('Authorization', `Bearer ${token}`),
    categories: (token: string) => request(categorization).get('/api/v2/categories').query({ apiKey: token }),
    introspect: (token: string) =>
      request(auth).post('/oauth/introspect').set('Authorization', `Bearer ${ADMIN_TOKEN}`).type('form').send({ token }),
    rotate: (apiKey: string) => request(user).get('/user-service/api-key/generate').query({ currentApiKey: apiKey }),
    usageHistory: (token: string) => request(user).get('/user-service/usage-history').set('Authorization', `Bearer ${token}`),
    debit: (credential: string, productId: number, units: number) =>
      request(user)
        .post('/internal/v1/usage')
        .set(
          'Authorization',
          `Bearer ${signServiceJwt({ issuer: 'cluster-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 })}`,
        )
        .send({ credential, productId, units, requestId: randomUUID() }),
  };
}

/** What each service answers to a token: balance and categories status, introspection activity. */
export async function seenBy(
  calls: ReturnType<typeof client>,
  token: string,
): Promise<{ user: number; categorization: number; introspection: unknown }> {
  const [balance, categories, introspection] = await Promise.all([calls.balance(token), calls.categories(token), calls.introspect(token)]);
  return {
    user: balance.status,
    categorization: categories.status,
    introspection: introspection.status === 200 ? (introspection.body as { active: unknown }).active : introspection.status,
  };
}

export async function newAccount(
  calls: ReturnType<typeof client>,
  credits: Record<string, number> = { 1: 1000 },
): Promise<{ id: number; apiKey: string }> {
  const created = await calls.createAccount(credits);
  expect(created.status).toBe(201);
  return created.body as { id: number; apiKey: string };
}

export async function tokenOf(calls: ReturnType<typeof client>, apiKey: string): Promise<string> {
  const minted = await calls.mint(apiKey);
  expect(minted.status).toBe(200);
  return (minted.body as { accessToken: string }).accessToken;
}
