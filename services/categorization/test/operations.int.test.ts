import request from 'supertest';
import { createMemoryAccessStore, generateAccessToken } from '@platform/credentials';
import { createPool } from '@platform/db';
import { silentLogger, startTcpProxy, testServers, type TcpProxy } from '@platform/testing';
import { loadConfig } from '../src/config';
import type { Category } from '../src/domain/category';
import { runCategorizationService } from '../src/service';
import { ADMIN_TOKEN, credentialsFor, startService, TAXONOMY_FILE, type Credentials, type StartedService } from './helpers';

const PATH = '/api/v2/categories';

describe('operations', () => {
  let postgres: TcpProxy;
  let redis: TcpProxy;
  let started: StartedService;
  let credentials: Credentials;

  beforeAll(async () => {
    postgres = await startTcpProxy(Number(new URL(testServers.databaseUrl).port || 5432));
    redis = await startTcpProxy(Number(new URL(testServers.redisUrl).port || 6379));
    started = await startService({
      DATABASE_URL: postgres.url(testServers.databaseUrl),
      REDIS_URL: redis.url(testServers.redisUrl),
      CATEGORY_REFRESH_INTERVAL_MS: '50',
    });
    credentials = await credentialsFor(started.config);
  });

  afterAll(async () => {
    await started.service.stop();
    await credentials.close();
    await postgres.close();
    await redis.close();
  });

  it('serves /health/live, /health/ready, /metrics and /openapi.json', async () => {
    const url = started.service.url;
    expect((await request(url).get('/health/live')).body).toEqual({ status: 'ok' });
    expect((await request(url).get('/health/ready')).body).toEqual({ status: 'ready' });
    await request(url).get(PATH);
    const metrics = await request(url).get('/metrics');
    expect(metrics.text).toMatch(/http_requests_total\{[^}]*route="\/api\/v2\/categories"[^}]*status="200"/);
    const openapi = (await request(url).get('/openapi.json')).body as { openapi: string; paths: Record<string, unknown> };
    expect(openapi.openapi).toBe('3.1.0');
    // The public document names the category list only; the admin API is in the admin document.
    expect(Object.keys(openapi.paths)).toEqual(['/api/v2/categories']);
  });

  it('when /admin/v1/openapi.json is read without an admin token, then 401 wrong_admin_token; with one, the admin API', async () => {
    const url = started.service.url;
    const refused = await request(url).get('/admin/v1/openapi.json');
    expect({ status: refused.status, body: refused.body, reason: refused.headers['x-refusal-reason'] }).toEqual({
      status: 401,
      body: { code: 401, messages: 'Access restricted. Check credits balance or enter the correct API key.' },
      reason: 'wrong_admin_token',
    });
    const served = await request(url).get('/admin/v1/openapi.json').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(served.status).toBe(200);
    expect(Object.keys((served.body as { paths: object }).paths)).toEqual([
      '/admin/v1/categories',
      '/admin/v1/categories/{id}',
      '/admin/v1/openapi.json',
    ]);
  });

  it('when Postgres and Redis are down, then the list is still served from memory, a credential gets 503 and readiness fails', async () => {
    const url = started.service.url;
    const token = await credentials.mintToken();
    const before = await request(url).get(PATH);
    postgres.cut();
    redis.cut();
    try {
      const during = await request(url).get(PATH);
      expect(during.status).toBe(200);
      expect(during.headers.etag).toBe(before.headers.etag);
      expect((during.body as Category[]).length).toBe((before.body as Category[]).length);

      for (const query of [{ apiKey: token }, { apiKey: credentials.account.apiKey }]) {
        const response = await request(url).get(PATH).query(query);
        expect(response.status).toBe(503);
        expect(response.body).toEqual({ code: 503, messages: 'Service temporarily unavailable. Try your call again later.' });
        expect(response.headers['retry-after']).toBe('5');
      }
      const ready = await request(url).get('/health/ready');
      expect(ready.status).toBe(503);
    } finally {
      postgres.restore();
      redis.restore();
    }
    const recovered = async (): Promise<number> => (await request(url).get(PATH).set('Authorization', `Bearer ${token}`)).status;
    for (let tries = 0; tries < 100 && (await recovered()) !== 200; tries += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await recovered()).toBe(200);
  });

  it('when Postgres is down, then creating or deleting a custom category is a 503 with Retry-After, and works again once it is back', async () => {
    const url = started.service.url;
    const admin = (call: request.Test): request.Test => call.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    postgres.cut();
    try {
      for (const call of [
        admin(request(url).post('/admin/v1/categories')).send({ name: `Outage ${Date.now()}`, parent: null }),
        admin(request(url).delete('/admin/v1/categories/CUS-999999')),
      ]) {
        const response = await call;
        expect(response.status).toBe(503);
        expect(response.body).toEqual({ code: 503, messages: 'Service temporarily unavailable. Try your call again later.' });
        expect(response.headers['retry-after']).toBe('5');
      }
    } finally {
      postgres.restore();
    }
    const created = await admin(request(url).post('/admin/v1/categories')).send({ name: `After outage ${Date.now()}`, parent: null });
    expect(created.status).toBe(201);
    expect((await admin(request(url).delete(`/admin/v1/categories/${(created.body as Category).id}`))).status).toBe(204);
  });

  it('when a pool and an access store are provided (embedded mode), then they are used (reconciled at start) and left open at stop', async () => {
    const pool = createPool({ connectionString: testServers.databaseUrl, logger: silentLogger(), max: 1 });
    const access = createMemoryAccessStore();
    const config = loadConfig({ CATEGORIZATION_PORT: '0', IAB_TAXONOMY_FILE: TAXONOMY_FILE }, { requireInfrastructure: false });
    const service = await runCategorizationService({
      config,
      logger: silentLogger(),
      given: { pool, redis: { access, client: undefined } },
    });
    try {
      // The account was created before the start: the start-up reconciliation brought its key in.
      const token = generateAccessToken(credentials.account.keyHash);
      const issued = await access.issue({
        keyHash: credentials.account.keyHash,
        token,
        issuedAt: Math.floor(Date.now() / 1000),
        ttlSeconds: 60,
        limit: { points: 10, windowSeconds: 60 },
      });
      expect(issued).toMatchObject({ outcome: 'issued', accountId: credentials.account.id });
      const response = await request(service.url).get(PATH).set('Authorization', `Bearer ${token}`);
      expect(response.status).toBe(200);
      expect((response.body as Category[]).filter((category) => category.id.startsWith('IAB-'))).toHaveLength(698);
      expect((await request(service.url).post('/admin/v1/categories').send({ name: 'x', parent: null })).status).toBe(401);
    } finally {
      await service.stop();
    }
    await expect(pool.query('SELECT 1')).resolves.toBeDefined();
    await expect(access.ping()).resolves.toBeUndefined();
    await access.close();
    await pool.end();
  });
});
