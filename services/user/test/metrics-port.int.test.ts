/**
 * METRICS_PORT (issue 45): `/metrics` on a port of its own, so that monitoring can be admitted to
 * metrics and not to the admin API on the service port (a NetworkPolicy selects ports, never
 * paths). The service port and the internal port answer 404 for it; METRICS_TOKEN still applies.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { signServiceJwt } from '@platform/credentials';
import type { UserService } from '../src';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET, startHarness, testConfig, type Harness } from './harness';

const METRICS_TOKEN = 'user-service-test-metrics-token-0123';
const NOT_FOUND = { status: 404, body: { code: 404, messages: 'Not found.' } };
let h: Harness;
let metricsUrl: string;
let internalUrl: string;
beforeAll(async () => {
  h = await startHarness({ config: testConfig({ METRICS_PORT: '0', USER_INTERNAL_PORT: '0', METRICS_TOKEN }) });
  metricsUrl = h.service.metricsUrl ?? '';
  internalUrl = (h.service as UserService).internalUrl ?? '';
});
afterAll(async () => {
  await h.stop();
});

const scrape = () => request(metricsUrl).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);

describe('/metrics on METRICS_PORT', () => {
  it('when the service starts with METRICS_PORT, then it names a metrics listener on a port of its own', () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    expect([h.service.url, internalUrl]).not.toContain(metricsUrl);
  });

  it('when the service port and the internal port are asked for /metrics, then 404 on both, with the token too', async () => {
    for (const base of [h.service.url, internalUrl]) {
      const res = await request(base).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
      expect({ status: res.status, body: res.body }).toEqual(NOT_FOUND);
    }
  });

  it('when Prometheus scrapes the metrics port, then the counts of both listeners are there: the admin API and the usage API', async () => {
    const account = await h.account({ 1: 10 });
    await h.http.get(`/admin/v1/accounts/${account.id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
    const jwt = signServiceJwt({ issuer: 'product-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
    await request(internalUrl)
      .post('/internal/v1/usage')
      .set('Authorization', `Bearer ${jwt}`)
      .send({ credential: account.apiKey, productId: 1, units: 1, requestId: randomUUID() })
      .expect(200);
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/admin\/v1\/accounts\/:id"[^}]*status="200"/);
    expect(res.text).toMatch(/usage_debits_total\{outcome="debited"[^}]*\} [1-9]/);
    expect(res.text).toContain('service_ready');
  });

  it('when the metrics port is asked without METRICS_TOKEN, then 401 as on the service port before', async () => {
    const res = await request(metricsUrl).get('/metrics');
    expect({ status: res.status, reason: res.headers['x-refusal-reason'] }).toEqual({ status: 401, reason: 'missing_credential' });
  });

  it.each(['/admin/v1/accounts', '/user-service/account-balance', '/health/ready', '/openapi.json'])(
    'when the metrics port is asked %s, then 404: monitoring admitted to it reaches nothing else',
    async (path) => {
      const res = await request(metricsUrl).get(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      expect({ status: res.status, body: res.body }).toEqual(NOT_FOUND);
    },
  );
});
