/**
 * USER_INTERNAL_PORT: the internal usage API listens on a port of its own and nowhere else, and
 * that port serves nothing else (but health and metrics), so that a NetworkPolicy can admit
 * product apps to the usage API without admitting them to the admin API (a policy selects
 * ports, never paths).
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { signServiceJwt } from '@platform/credentials';
import type { UserService } from '../src';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET, startHarness, testConfig, type Harness } from './harness';

let h: Harness;
let internalUrl: string;
beforeAll(async () => {
  h = await startHarness({ config: testConfig({ USER_INTERNAL_PORT: '0' }) });
  internalUrl = (h.service as UserService).internalUrl ?? '';
});
afterAll(async () => {
  await h.stop();
});

const jwt = (): string => signServiceJwt({ issuer: 'product-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
const NOT_FOUND = { code: 404, messages: 'Not found.' };

describe('the internal usage API on USER_INTERNAL_PORT', () => {
  it('when the service starts with USER_INTERNAL_PORT, then it names a second listener on another port', () => {
    expect(internalUrl).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    expect(internalUrl).not.toBe(h.service.url);
  });

  it('when a product app debits on the internal port, then 200; on the public port the path does not exist', async () => {
    const account = await h.account({ 1: 10 });
    const body = () => ({ credential: account.apiKey, productId: 1, units: 2, requestId: randomUUID() });
    const internal = await request(internalUrl).post('/internal/v1/usage').set('Authorization', `Bearer ${jwt()}`).send(body());
    expect({ status: internal.status, body: internal.body }).toEqual({
      status: 200,
      body: { accountId: account.id, productId: 1, credits: 8 },
    });
    const publicPort = await h.http.post('/internal/v1/usage').set('Authorization', `Bearer ${jwt()}`).send(body());
    expect({ status: publicPort.status, body: publicPort.body }).toEqual({ status: 404, body: NOT_FOUND });
  });

  it.each([
    ['GET', '/admin/v1/accounts/1'],
    ['POST', '/admin/v1/accounts'],
    ['GET', '/user-service/account-balance'],
    ['GET', '/user-service/api-key/generate'],
    ['GET', '/account/config.json'],
  ])('when %s %s is asked on the internal port, then 404 (only the usage API lives there)', async (method, path) => {
    const call = method === 'GET' ? request(internalUrl).get(path) : request(internalUrl).post(path).send({});
    const res = await call.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: NOT_FOUND });
  });

  it('when the public port is asked for the admin API and balances, then they answer there as before', async () => {
    const account = await h.account({ 1: 5 });
    expect((await h.http.get(`/admin/v1/accounts/${account.id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    expect((await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey })).status).toBe(200);
  });

  it('when the probes and Prometheus ask the internal port, then health and metrics answer there too', async () => {
    expect((await request(internalUrl).get('/health/ready')).status).toBe(200);
    const metrics = await request(internalUrl).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('http_requests_total');
  });
});
