/**
 * The whole platform for the client's tests, in-process on the real Postgres, Redis and RabbitMQ
 * (`startPlatform` of @platform/testing: each file its own database and Redis key prefix, as the
 * categorization service's tests add categories to the shared database while these count the
 * list). `useTestPlatform()` starts it for a file.
 */
import { accessLayout, closeRedis, connectRedis, hashSecret, signServiceJwt, tokenShardTag } from '@platform/credentials';
import { eventually, silentLogger, testServers, uniqueId } from '@platform/testing';
import { startPlatform } from '@platform/testing/platform';
import type { FetchFunction } from '../src/index.js';

export interface TestPlatform {
  urls: { auth: string; user: string; categorization: string };
  /** The three base URLs as the client takes them. */
  clientUrls: { authUrl: string; userUrl: string; categorizationUrl: string };
  /** Creates an account through the admin API; answers its id and API key. */
  anAccount(credits?: Record<string, number>): Promise<{ id: number; apiKey: string }>;
  /** Disables the account through the admin API (its key and tokens are refused at once). */
  disable(accountId: number): Promise<void>;
  /** SERVICE_JWT_SECRET of the platform's user service, for product-service clients. */
  serviceJwtSecret: string;
  /** Debits `units` of `productId` through the internal usage API, as a product service does. */
  debit(credential: string, productId: number, units: number): Promise<void>;
  /** Lets a token's Redis record reach the end of its TTL now, as if its lifetime were over. */
  expireToken(token: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestPlatform(env: Record<string, string> = {}): Promise<TestPlatform> {
  const serviceJwtSecret = `client-test-service-jwt-${uniqueId()}-0123456789abcdef`;
  const platform = await startPlatform({ name: 'client', env: { SERVICE_JWT_SECRET: serviceJwtSecret, ...env } });
  const prefix = platform.prefix;
  const adminToken = platform.env.ADMIN_TOKEN as string;
  const urls = { auth: platform.url('auth'), user: platform.url('user'), categorization: platform.url('categorization') };
  const redis = await connectRedis(testServers.redisUrl, silentLogger());
  const layout = accessLayout(prefix);
  return {
    urls: urls,
    clientUrls: { authUrl: urls.auth, userUrl: urls.user, categorizationUrl: urls.categorization },
    serviceJwtSecret,
    async anAccount(credits = { '1': 100 }) {
      const response = await fetch(`${urls.user}/admin/v1/accounts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: `${uniqueId('client')}@example.test`, credits }),
      });
      if (response.status !== 201) throw new Error(`account not created: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: number; apiKey: string };
    },
    async disable(accountId) {
      const response = await fetch(`${urls.user}/admin/v1/accounts/${accountId}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ disabled: true }),
      });
      if (response.status !== 200) throw new Error(`account not disabled: ${response.status} ${await response.text()}`);
      await response.body?.cancel();
    },
    async debit(credential, productId, units) {
      const jwt = signServiceJwt({ issuer: 'client-test', audience: 'user', secret: serviceJwtSecret, ttlSeconds: 60 });
      const response = await fetch(`${urls.user}/internal/v1/usage`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ credential, productId, units, requestId: uniqueId('debit') }),
      });
      if (response.status !== 200) throw new Error(`debit refused: ${response.status} ${await response.text()}`);
      await response.body?.cancel();
    },
    async expireToken(token) {
      const key = layout.token(tokenShardTag(token), hashSecret(token));
      if ((await redis.pexpire(key, 1)) !== 1) throw new Error('no such token in Redis');
      await eventually(async () => ((await redis.exists(key)) === 0 ? true : undefined), 5000, 'the token to expire');
    },
    async stop() {
      await closeRedis(redis);
      await platform.stop();
    },
  };
}

/** The platform of a file: started before its tests (its members filled in then), stopped after them. */
export function useTestPlatform(): TestPlatform {
  const platform = {} as TestPlatform;
  beforeAll(async () => {
    Object.assign(platform, await startTestPlatform());
  }, 60_000);
  afterAll(async () => {
    await platform.stop?.();
  });
  return platform;
}

export interface RecordedCall {
  method: string;
  url: URL;
  status: number;
  headers: Record<string, string>;
}

/** A fetch that records every request the client sends and the status it got. */
export function recordingFetch(): { fetch: FetchFunction; calls: RecordedCall[]; tokenRequests(): number } {
  const calls: RecordedCall[] = [];
  return {
    calls,
    tokenRequests: () => calls.filter((call) => call.url.pathname === '/oauth/token').length,
    async fetch(input, init) {
      const response = await fetch(input, init);
      calls.push({
        method: init.method ?? 'GET',
        url: new URL(input),
        status: response.status,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
      });
      return response;
    },
  };
}
