/**
 * CONTRACT §8/§9: health, metrics (with route-template labels) and OpenAPI documents on every service.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { GRANT, JSON_TYPE, expectBody, metricSample, seedBearer, unknownKey, usePlatform, type ServiceName } from './support';

const { send, balanceOf, admin } = usePlatform({ categorization: true, notifier: true });

const OPENAPI_PATHS: Record<ServiceName, string[]> = {
  auth: ['/oauth/token', '/oauth/introspect', '/oauth/revoke', '/.well-known/oauth-authorization-server'],
  user: [
    '/user-service/account-balance',
    '/user-service/api-key/generate',
    '/user-service/notification-settings',
    '/user-service/usage-history',
  ],
  categorization: ['/api/v2/categories'],
  notifier: [],
};

describe.each<ServiceName>(['auth', 'user', 'categorization', 'notifier'])('§8 operations on %s', (service) => {
  it('when /health/live is asked, then 200 {"status":"ok"}', async () => {
    expectBody(await send(service, '/health/live'), 200, { status: 'ok' });
  });

  it('when /health/ready is asked with every dependency up, then 200 {"status":"ready"}', async () => {
    expectBody(await send(service, '/health/ready'), 200, { status: 'ready' });
  });

  it('when /metrics is asked, then Prometheus text with http_requests_total and http_request_duration_seconds', async () => {
    await send(service, '/health/live');
    const reply = await send(service, '/metrics');
    expect(reply.status).toBe(200);
    expect(reply.type).toMatch(/^text\/plain/);
    expect(reply.text).toMatch(/^# TYPE http_requests_total counter$/m);
    expect(reply.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
  });

  it('when /openapi.json is asked, then an OpenAPI 3.1 document describing the service’s public endpoints', async () => {
    const reply = await send(service, '/openapi.json');
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    const document = reply.json() as { openapi?: string; paths?: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    for (const path of OPENAPI_PATHS[service]) expect(Object.keys(document.paths ?? {})).toContain(path);
  });

  it('when /version is asked, then {"version": "<semver>", "commit": "<git sha>"}', async () => {
    const reply = await send(service, '/version');
    expect({ status: reply.status, type: reply.type, body: reply.json() }).toEqual({
      status: 200,
      type: JSON_TYPE,
      body: { version: expect.stringMatching(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/), commit: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
  });
});

describe('§8/§9 metric labels: route template and numeric status', () => {
  it.each<[string, ServiceName, () => Promise<unknown>, Record<string, string>]>([
    ['a GET balance 401', 'user', () => balanceOf(unknownKey()), { method: 'GET', route: '/user-service/account-balance', status: '401' }],
    [
      'a POST legacy balance 401',
      'user',
      () => send('user', '/service/account-balance', { json: { apiKey: unknownKey() } }),
      { method: 'POST', route: '/service/account-balance', status: '401' },
    ],
    [
      'an admin account 404',
      'user',
      () => admin('GET', '/admin/v1/accounts/987654321'),
      { method: 'GET', route: '/admin/v1/accounts/:id', status: '404' },
    ],
    [
      'an admin credits 404',
      'user',
      () => admin('POST', '/admin/v1/accounts/987654321/credits', { productId: 1, amount: 1 }),
      { method: 'POST', route: '/admin/v1/accounts/:id/credits', status: '404' },
    ],
    [
      'a categories 200',
      'categorization',
      () => send('categorization', '/api/v2/categories'),
      { method: 'GET', route: '/api/v2/categories', status: '200' },
    ],
    [
      'a category delete 404',
      'categorization',
      () => admin('DELETE', '/admin/v1/categories/CUS-987654321'),
      { method: 'DELETE', route: '/admin/v1/categories/:id', status: '404' },
    ],
    [
      'a token 401',
      'auth',
      () => send('auth', '/oauth/token', { headers: seedBearer(unknownKey()), json: GRANT }),
      { method: 'POST', route: '/oauth/token', status: '401' },
    ],
  ])('when %s is served, then both metrics carry method, route template and numeric status', async (_case, service, request, labels) => {
    await request();
    const exposition = (await send(service, '/metrics')).text;
    expect(metricSample(exposition, 'http_requests_total', labels)).toBeDefined();
    expect(metricSample(exposition, 'http_request_duration_seconds_count', labels)).toBeDefined();
  });
});
