/**
 * The user service's two documents (issue 45): `/openapi.json` describes the public endpoints to
 * anyone; the admin and internal APIs are described at `/admin/v1/openapi.json`, to an admin token
 * only (either role), refused like any admin route otherwise.
 */
import { ACCESS_RESTRICTED, ADMIN_TOKEN, startHarness, testConfig, type Harness } from './harness';

const SUPPORT_TOKEN = 'user-service-test-support-token-0123456789';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: testConfig({ ADMIN_TOKENS: `helpdesk:support=${SUPPORT_TOKEN}` }) });
});
afterAll(async () => {
  await h.stop();
});

const pathsOf = (body: { paths?: Record<string, unknown> }): string[] => Object.keys(body.paths ?? {});

describe('the public document and the admin document', () => {
  it('when /openapi.json is read without a credential, then it names the public endpoints and no admin or internal path', async () => {
    const res = await h.http.get('/openapi.json');
    expect(res.status).toBe(200);
    const paths = pathsOf(res.body);
    expect(paths).toEqual(expect.arrayContaining(['/user-service/account-balance', '/user-service/notification-settings']));
    expect(paths.filter((path) => /^\/(admin|internal)\//.test(path))).toEqual([]);
    // No scheme of the admin or internal APIs is named either.
    expect(Object.keys(res.body.components.securitySchemes)).toEqual(['credential']);
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', 'not-an-admin-token-0123456789-0123456789'],
  ])('when /admin/v1/openapi.json is read with %s, then 401 in the admin envelope, wrong_admin_token', async (_case, token) => {
    const call = h.http.get('/admin/v1/openapi.json');
    const res = await (token === undefined ? call : call.set('Authorization', `Bearer ${token}`));
    expect({ status: res.status, body: res.body, reason: res.headers['x-refusal-reason'] }).toEqual({
      status: 401,
      body: { code: 401, messages: ACCESS_RESTRICTED },
      reason: 'wrong_admin_token',
    });
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('/internal/');
  });

  it.each([
    ['an admin', ADMIN_TOKEN],
    ['a support (read-only)', SUPPORT_TOKEN],
  ])('when /admin/v1/openapi.json is read with %s token, then the admin and internal endpoints, not cached', async (_role, token) => {
    const res = await h.http.get('/admin/v1/openapi.json').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.openapi).toBe('3.1.0');
    const paths = pathsOf(res.body);
    expect(paths).toEqual(
      expect.arrayContaining(['/admin/v1/accounts', '/admin/v1/accounts/{id}/credits', '/internal/v1/usage', '/admin/v1/openapi.json']),
    );
    expect(paths.filter((path) => !/^\/(admin|internal)\//.test(path))).toEqual([]);
    expect(res.body.paths['/internal/v1/usage'].post.responses).toHaveProperty('409');
    expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual(['admin', 'serviceJwt']);
  });
});
