import request from 'supertest';
import { memoryFailureLimit, type FailureLimit } from '@platform/credentials';
import { createLogger, Health } from '@platform/runtime';
import { PassThrough } from 'node:stream';
import { adminActor, requireAdminToken } from './admin-token';
import { createHttpApp } from './http';

function adminApp(adminToken: string | undefined, failures?: FailureLimit) {
  const http = createHttpApp({
    trustProxy: ['loopback'],
    service: 'admin-test',
    logger: createLogger({ service: 'admin-test', level: 'error', stream: new PassThrough().resume() }),
    health: new Health({}),
    openapi: {},
  });
  http.app.use('/admin', requireAdminToken(adminToken, failures ? { failures } : {}));
  http.app.get('/admin/ping', (_req, res) => {
    res.json({ ok: true });
  });
  return http.finish();
}

const TOKEN = 'admin-token-for-the-guard-test-0123456789';

/** An app without a proxy in front, for routes the test mounts behind its own guard. */
function namedTokensHttp() {
  return createHttpApp({
    trustProxy: false,
    service: 'admin-test',
    logger: createLogger({ service: 'admin-test', level: 'error', stream: new PassThrough().resume() }),
    health: new Health({}),
    openapi: {},
  });
}
const UNAUTHENTICATED = { code: 401, messages: 'Access restricted. Check credits balance or enter the correct API key.' };

describe('requireAdminToken', () => {
  it('when the admin token is presented as Bearer, then the request goes through', async () => {
    const response = await request(adminApp(TOKEN)).get('/admin/ping').set('Authorization', `Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
  });

  it.each([
    ['no Authorization', undefined],
    ['another token', 'Bearer admin-token-for-the-guard-tesT'],
    ['a prefix of the token', 'Bearer admin-token'],
    ['Basic credentials', `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}`],
  ])('when %s is sent, then 401 in JSON without WWW-Authenticate', async (_what, authorization) => {
    const call = request(adminApp(TOKEN)).get('/admin/ping').query({ outputFormat: 'XML' });
    const response = await (authorization === undefined ? call : call.set('Authorization', authorization));
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual(UNAUTHENTICATED);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('when named tokens are configured, then each is accepted and its name is the actor', async () => {
    const http = namedTokensHttp();
    const tokens = [
      { name: 'admin', token: TOKEN },
      { name: 'ops-alice', token: 'alice-admin-token-0123456789-abcdef' },
    ];
    http.app.use('/admin', requireAdminToken(tokens));
    http.app.get('/admin/whoami', (_req, res) => {
      res.json({ actor: adminActor(res) });
    });
    const app = http.finish();
    const who = async (token: string) => (await request(app).get('/admin/whoami').set('Authorization', `Bearer ${token}`)).body as unknown;
    expect(await who(TOKEN)).toEqual({ actor: 'admin' });
    expect(await who('alice-admin-token-0123456789-abcdef')).toEqual({ actor: 'ops-alice' });
    expect((await request(app).get('/admin/whoami').set('Authorization', 'Bearer alice-admin-token-0123456789-abcdeF')).status).toBe(401);
  });

  it('when a support token is presented, then GET and HEAD go through and every other method is 403 read_only_admin before the route', async () => {
    const http = namedTokensHttp();
    const support = 'support-admin-token-0123456789-abcdef';
    http.app.use('/admin', requireAdminToken([{ name: 'sam', token: support, role: 'support' }]));
    let reached = 0;
    http.app.all('/admin/thing', (_req, res) => {
      reached += 1;
      res.json({ actor: adminActor(res) });
    });
    const app = http.finish();
    const as = (method: 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete') =>
      request(app)[method]('/admin/thing').set('Authorization', `Bearer ${support}`);
    expect((await as('get')).body).toEqual({ actor: 'sam' });
    expect((await as('head')).status).toBe(200);
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const refused = await as(method);
      expect({ status: refused.status, body: refused.body as unknown, reason: refused.headers['x-refusal-reason'] }).toEqual({
        status: 403,
        body: { code: 403, messages: 'This admin token may only read.' },
        reason: 'read_only_admin',
      });
    }
    expect(reached).toBe(2);
  });

  it('when an operator reads through the admin API, then the request line names the actor (issue 45 L5: reads are attributed)', async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const http = createHttpApp({
      trustProxy: false,
      service: 'admin-test',
      logger: createLogger({ service: 'admin-test', level: 'info', stream }),
      health: new Health({}),
      openapi: {},
    });
    http.app.use('/admin', requireAdminToken([{ name: 'ops', token: TOKEN, role: 'support' }]));
    http.app.get('/admin/ping', (_req, res) => {
      res.json({ ok: true });
    });
    expect((await request(http.finish()).get('/admin/ping').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
    const requestLine = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((record) => record.message === 'request');
    expect(requestLine).toMatchObject({ actor: 'ops', method: 'GET', status: '200' });
  });

  it('when no admin token is configured, then every call is refused', async () => {
    const response = await request(adminApp(undefined)).get('/admin/ping').set('Authorization', 'Bearer anything-at-all-here');
    expect(response.status).toBe(401);
  });

  describe('with a failure limit per address (AUTH_FAILURES_PER_IP, as on the token endpoints)', () => {
    const LIMIT = 3;
    const fromAddress = (app: ReturnType<typeof adminApp>, address: string, token: string) =>
      request(app).get('/admin/ping').set('X-Forwarded-For', address).set('Authorization', `Bearer ${token}`);

    it('when an address goes over the limit with wrong tokens, then 429 with Retry-After; other addresses still get 401', async () => {
      const app = adminApp(TOKEN, memoryFailureLimit({ points: LIMIT, keyPrefix: 'admin-test' }));
      for (let attempt = 0; attempt < LIMIT; attempt += 1)
        expect((await fromAddress(app, '198.51.100.7', `guess-${attempt}`)).status).toBe(401);
      const limited = await fromAddress(app, '198.51.100.7', 'guess-over');
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ code: 429, messages: 'Too Many Requests. Try your call again later.' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await fromAddress(app, '198.51.100.8', 'guess')).status).toBe(401);
    });

    it('when the address is over the limit, then even the right token gets 429 until the window ends (issue 28)', async () => {
      const app = adminApp(TOKEN, memoryFailureLimit({ points: LIMIT, keyPrefix: 'admin-test', durationSeconds: 1 }));
      for (let attempt = 0; attempt <= LIMIT; attempt += 1) await fromAddress(app, '198.51.100.9', `guess-${attempt}`);
      const refused = await fromAddress(app, '198.51.100.9', TOKEN);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await fromAddress(app, '198.51.100.19', TOKEN)).status).toBe(200);
    });

    it('when the window of an address over the limit ends, then the right token is served again', async () => {
      const app = adminApp(TOKEN, memoryFailureLimit({ points: LIMIT, keyPrefix: 'admin-test', durationSeconds: 1 }));
      for (let attempt = 0; attempt <= LIMIT; attempt += 1) await fromAddress(app, '198.51.100.29', `guess-${attempt}`);
      expect((await fromAddress(app, '198.51.100.29', TOKEN)).status).toBe(429);
      // The window is one second here: wait for it to end (the limit store keeps time, not an event).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await fromAddress(app, '198.51.100.29', TOKEN)).status).toBe(200);
    });

    it('when the limit store fails, then a wrong token still gets its 401', async () => {
      const broken: FailureLimit = {
        recordFailure: () => Promise.reject(new Error('store down')),
        blockedFor: () => Promise.reject(new Error('store down')),
      };
      expect((await fromAddress(adminApp(TOKEN, broken), '198.51.100.10', 'guess')).status).toBe(401);
    });
  });
});
