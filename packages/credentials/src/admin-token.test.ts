import request from 'supertest';
import { createHttpApp, createLogger, Health } from '@platform/common';
import { PassThrough } from 'node:stream';
import { requireAdminToken } from './admin-token';

function adminApp(adminToken: string | undefined) {
  const http = createHttpApp({
    service: 'admin-test',
    logger: createLogger({ service: 'admin-test', level: 'error', stream: new PassThrough().resume() }),
    health: new Health({}),
    openapi: {},
  });
  http.app.use('/admin', requireAdminToken(adminToken));
  http.app.get('/admin/ping', (_req, res) => {
    res.json({ ok: true });
  });
  return http.finish();
}

const TOKEN = 'admin-token-for-the-guard-test';
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

  it('when no admin token is configured, then every call is refused', async () => {
    const response = await request(adminApp(undefined)).get('/admin/ping').set('Authorization', 'Bearer anything-at-all-here');
    expect(response.status).toBe(401);
  });
});
