import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { signServiceJwt } from '@platform/credentials';
import { serviceTestEnv, sourceNodeArgs } from '@platform/testing';
import { startPlatform } from '@platform/testing/platform';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const ADMIN_TOKEN = 'restore-drill-admin-token-0123456789';
const SERVICE_JWT_SECRET = 'restore-drill-service-jwt-secret-0123456789';

/** Where the services find Postgres and Redis: what the restore procedure changes and keeps. */
export interface DrillTarget {
  databaseUrl: string;
  redis: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string };
  redisKeyPrefix: string;
}

const environmentOf = (target: DrillTarget): Record<string, string> => ({
  DATABASE_URL: target.databaseUrl,
  ...target.redis,
  REDIS_KEY_PREFIX: target.redisKeyPrefix,
  ...serviceTestEnv({ adminToken: ADMIN_TOKEN, serviceJwtSecret: SERVICE_JWT_SECRET }),
  AUTH_URL: 'http://auth.restore-drill.test',
});

/** The three HTTP services, started as an operator starts them (migrations and the access store's check before ready). */
export interface DrillServices {
  user: string;
  auth: string;
  categorization: string;
  stop(): Promise<void>;
}

export async function startServices(target: DrillTarget): Promise<DrillServices> {
  // The keys stay when the services stop: the procedure runs on the Redis they leave.
  const platform = await startPlatform({
    name: 'restore-drill',
    services: ['user', 'categorization', 'auth'],
    bus: 'in-process',
    databaseUrl: target.databaseUrl,
    keepKeys: true,
    env: environmentOf(target),
  });
  return {
    user: platform.url('user'),
    auth: platform.url('auth'),
    categorization: platform.url('categorization'),
    stop: () => platform.stop(),
  };
}

/** `pg_dump -Fc`, as docs/operations.md says (the server itself, never a pooler). */
export async function pgDump(databaseUrl: string, file: string): Promise<void> {
  await run('pg_dump', ['-Fc', '-f', file, databaseUrl]);
}

/** `pg_restore --no-owner -d <fresh database>`, as docs/operations.md says. */
export async function pgRestore(file: string, databaseUrl: string): Promise<void> {
  await run('pg_restore', ['--no-owner', '-d', databaseUrl, file]);
}

/** `pnpm admin reconcile --all` (scripts/admin.ts in a process of its own), with the services' environment; its JSON answer. */
export async function adminReconcileAll(target: DrillTarget): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [...sourceNodeArgs, 'scripts/admin.ts', 'reconcile', '--all'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...environmentOf(target) },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/**
 * A call as a client of the contract makes it (CONTRACT §1): a 503 is sent again after its
 * Retry-After, a few times. A service on a Redis Cluster answers 503 while its access store is
 * closed for a slot refresh right after it starts; the drill asserts the answers that follow.
 */
async function asClient(send: () => request.Test): Promise<request.Response> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send();
    if (answer.status !== 503 || attempt === 5) return answer;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after'] ?? 1) * 1000));
  }
}

/** The customer's and the operator's calls the drill makes. */
export function drillCalls(services: DrillServices) {
  const admin = (call: request.Test): request.Test => call.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return {
    async createAccount(credits: Record<string, number>): Promise<{ id: number; apiKey: string }> {
      const created = await admin(request(services.user).post('/admin/v1/accounts')).send({
        email: `drill-${randomUUID()}@example.test`,
        credits,
      });
      if (created.status !== 201) throw new Error(`account not created: ${created.status}`);
      const body = created.body as { id: number; apiKey: string };
      return { id: body.id, apiKey: body.apiKey };
    },
    topUp: (accountId: number, amount: number) =>
      admin(request(services.user).post(`/admin/v1/accounts/${accountId}/credits`)).send({ productId: 1, amount }),
    rotate: (apiKey: string) =>
      asClient(() => request(services.user).get('/user-service/api-key/generate').query({ currentApiKey: apiKey })),
    mint: (apiKey: string) =>
      asClient(() =>
        request(services.auth)
          .post('/oauth/token')
          .set('Authorization', `Bearer ${Buffer.from(apiKey).toString('base64')}`)
          .send({ grantType: 'access_token' }),
      ),
    balance: (credential: string) =>
      asClient(() => request(services.user).get('/user-service/account-balance').set('Authorization', `Bearer ${credential}`)),
    /** Product 1's credits as the balance endpoint reads them. */
    async credits(credential: string): Promise<unknown> {
      const balance = await asClient(() =>
        request(services.user).get('/user-service/account-balance').query({ productId: 1 }).set('Authorization', `Bearer ${credential}`),
      );
      return (balance.body as { data?: Array<{ credits: number }> }).data?.[0]?.credits;
    },
    /** A debit as a product sends it: one requestId, kept across the retries of a 503. */
    debit(credential: string, units: number): Promise<request.Response> {
      const body = { credential, productId: 1, units, requestId: randomUUID() };
      const jwt = signServiceJwt({ issuer: 'restore-drill', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
      return asClient(() => request(services.user).post('/internal/v1/usage').set('Authorization', `Bearer ${jwt}`).send(body));
    },
    /** How each service answers a token: statuses, and the introspection's `active`. */
    async seenBy(token: string): Promise<{ user: number; categorization: number; introspection: number | boolean }> {
      const [balance, categories, introspection] = await Promise.all([
        asClient(() => request(services.user).get('/user-service/account-balance').set('Authorization', `Bearer ${token}`)),
        asClient(() => request(services.categorization).get('/api/v2/categories').query({ apiKey: token })),
        asClient(() => admin(request(services.auth).post('/oauth/introspect')).type('form').send({ token })),
      ]);
      return {
        user: balance.status,
        categorization: categories.status,
        introspection: introspection.status === 200 ? (introspection.body as { active: boolean }).active : introspection.status,
      };
    },
  };
}
