/**
 * CORS (CONTRACT §2): the public endpoints answer any origin and expose the headers a browser
 * client needs; their preflights answer 204; admin, internal, health and metrics endpoints send
 * no CORS headers at all.
 */
import { ADMIN_TOKEN, bearer, call, usePlatform, type Reply } from './support';
import { corsEndpointsOf } from './support/declared-endpoints';

const { platform } = usePlatform({ categorization: true });

const ORIGIN = { Origin: 'https://customer.example' };
/** Every public endpoint with its methods, as the declarations (`cors: true`) name them. */
const PUBLIC = (['auth', 'user', 'categorization'] as const).flatMap((service) =>
  Object.entries(corsEndpointsOf(service)).map(([path, methods]) => ({ service, path, methods: [...methods] })),
);

it('when the public endpoints are read from the declarations, then the seed’s, the extensions’ and usage history are among them', () => {
  expect(PUBLIC).toEqual(
    expect.arrayContaining([
      { service: 'auth', path: '/oauth/token', methods: ['POST'] },
      { service: 'auth', path: '/.well-known/oauth-authorization-server', methods: ['GET'] },
      { service: 'user', path: '/user-service/account-balance', methods: ['GET', 'POST'] },
      { service: 'user', path: '/service/account-balance', methods: ['GET', 'POST'] },
      { service: 'user', path: '/user-service/api-key/generate', methods: ['GET'] },
      { service: 'user', path: '/user-service/notification-settings', methods: ['GET', 'POST'] },
      { service: 'user', path: '/user-service/usage-history', methods: ['GET', 'POST'] },
      { service: 'categorization', path: '/api/v2/categories', methods: ['GET'] },
    ]),
  );
});
const PRIVATE: Array<{ service: 'auth' | 'user' | 'categorization'; path: string; method: 'GET' | 'POST' }> = [
  { service: 'user', path: '/admin/v1/accounts/1', method: 'GET' },
  { service: 'user', path: '/internal/v1/usage', method: 'POST' },
  { service: 'categorization', path: '/admin/v1/categories', method: 'POST' },
  { service: 'auth', path: '/health/ready', method: 'GET' },
  { service: 'user', path: '/health/live', method: 'GET' },
  { service: 'categorization', path: '/metrics', method: 'GET' },
];
const corsHeaders = (reply: Reply): string[] => [...reply.headers.keys()].filter((name) => name.startsWith('access-control-'));
const list = (value: string | null): string[] => (value ?? '').split(',').map((item) => item.trim().toLowerCase());

describe.each(PUBLIC)('§2 CORS on the public endpoint $path', ({ service, path, methods }) => {
  it('when a browser sends a preflight, then 204 allows any origin, the methods and the Authorization, Content-Type and If-None-Match headers', async () => {
    const reply = await call(platform[service], path, {
      method: 'OPTIONS',
      headers: {
        ...ORIGIN,
        'Access-Control-Request-Method': methods[0] as string,
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(reply.status).toBe(204);
    expect(reply.header('access-control-allow-origin')).toBe('*');
    expect(list(reply.header('access-control-allow-methods'))).toEqual(methods.map((method) => method.toLowerCase()));
    expect(list(reply.header('access-control-allow-headers'))).toEqual(['authorization', 'content-type', 'if-none-match']);
  });

  it('when a cross-origin request is answered (an error here), then it allows any origin and exposes X-Request-Id, ETag, Retry-After and WWW-Authenticate', async () => {
    const reply = await call(platform[service], path, {
      method: methods[0] as 'GET' | 'POST',
      headers: { ...ORIGIN, ...bearer('tk_not-a-token') },
      ...(methods[0] === 'POST' ? { form: { token: 'tk_not-a-token' } } : {}),
    });
    expect(reply.header('access-control-allow-origin')).toBe('*');
    expect(list(reply.header('access-control-expose-headers'))).toEqual(['x-request-id', 'etag', 'retry-after', 'www-authenticate']);
  });
});

describe.each(PRIVATE)('§2 no CORS on $path', ({ service, path, method }) => {
  it('when a cross-origin request or preflight arrives, then no CORS header is sent', async () => {
    const reply = await call(platform[service], path, {
      method,
      headers: { ...ORIGIN, ...bearer(ADMIN_TOKEN) },
      ...(method === 'POST' ? { json: {} } : {}),
    });
    expect(corsHeaders(reply)).toEqual([]);
    const preflight = await call(platform[service], path, {
      method: 'OPTIONS',
      headers: { ...ORIGIN, 'Access-Control-Request-Method': method },
    });
    expect(corsHeaders(preflight)).toEqual([]);
    expect(preflight.status).not.toBe(204);
  });
});
