import { PassThrough } from 'node:stream';
import request from 'supertest';
import { type TrustProxy, Health, createLogger } from '@platform/runtime';
import { createHttpApp } from './http';

const METRICS_TOKEN = 'metrics-token-for-the-kernel-test';

/** A kernel app with one route that answers the client address express derived. */
function buildApp(options: { trustProxy?: TrustProxy; metricsToken?: string } = {}) {
  const http = createHttpApp({
    service: 'security-test',
    logger: createLogger({ service: 'security-test', level: 'error', stream: new PassThrough().resume() }),
    health: new Health({}),
    openapi: {},
    ...options,
  });
  http.app.get('/whoami', (req, res) => {
    res.json({ ip: req.ip });
  });
  return http.finish();
}

const addressOf = async (app: ReturnType<typeof buildApp>, forwardedFor: string): Promise<unknown> =>
  (await request(app).get('/whoami').set('X-Forwarded-For', forwardedFor)).body.ip;

describe('TRUST_PROXY in the kernel', () => {
  it('when no proxy is trusted (the default), then 100 spoofed X-Forwarded-For values all count as the connecting address', async () => {
    const app = buildApp();
    const seen = new Set<unknown>();
    for (let index = 0; index < 100; index += 1) seen.add(await addressOf(app, `198.51.100.${index}`));
    expect(seen.size).toBe(1);
    expect(String([...seen][0])).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  });

  it('when the proxy is trusted by address, then the entry it appended is the client, and a client-written entry to its left is not', async () => {
    const app = buildApp({ trustProxy: ['loopback'] });
    expect(await addressOf(app, '203.0.113.9')).toBe('203.0.113.9');
    expect(await addressOf(app, 'spoofed-by-client, 203.0.113.9')).toBe('203.0.113.9');
  });

  it('when the connecting address is not in the trusted list, then X-Forwarded-For is ignored (a client reaching the pod directly cannot pick its address)', async () => {
    const app = buildApp({ trustProxy: ['10.0.0.0/8'] });
    const seen = new Set<unknown>();
    for (let index = 0; index < 100; index += 1) seen.add(await addressOf(app, `198.51.100.${index}`));
    expect(seen.size).toBe(1);
    expect(String([...seen][0])).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  });

  it('when a hop count is given, then that many entries from the right are skipped, never the client-written left-most one', async () => {
    const app = buildApp({ trustProxy: 2 });
    expect(await addressOf(app, 'spoofed, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
  });
});

describe('METRICS_TOKEN', () => {
  it('when no token is configured, then /metrics is open as before', async () => {
    const response = await request(buildApp()).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.text).toContain('http_requests_total');
  });

  it('when a token is configured and sent as Bearer, then /metrics answers', async () => {
    const response = await request(buildApp({ metricsToken: METRICS_TOKEN }))
      .get('/metrics')
      .set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.text).toContain('http_requests_total');
  });

  it.each([
    ['no Authorization', undefined, 'missing_credential'],
    ['a wrong token', 'Bearer metrics-token-for-the-kernel-tesT', 'invalid_credential'],
    ['a prefix of the token', 'Bearer metrics-token', 'invalid_credential'],
    ['Basic credentials', `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString('base64')}`, 'invalid_credential'],
  ])(
    'when a token is configured and %s is sent, then 401 in JSON saying why, no metrics, no WWW-Authenticate',
    async (_what, authorization, reason) => {
      const call = request(buildApp({ metricsToken: METRICS_TOKEN })).get('/metrics');
      const response = await (authorization === undefined ? call : call.set('Authorization', authorization));
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual({ code: 401, messages: 'Access restricted. Check credits balance or enter the correct API key.' });
      expect(response.text).not.toContain('http_requests_total');
      expect(response.headers['www-authenticate']).toBeUndefined();
      expect(response.headers['x-refusal-reason']).toBe(reason);
    },
  );

  it('when a token is configured, then health and OpenAPI stay open (probes send no token)', async () => {
    const app = buildApp({ metricsToken: METRICS_TOKEN });
    expect((await request(app).get('/health/live')).status).toBe(200);
    expect((await request(app).get('/openapi.json')).status).toBe(200);
  });
});
