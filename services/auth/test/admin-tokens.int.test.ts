/**
 * CONTRACT §7: the introspection endpoint takes the same admin tokens as the admin APIs,
 * ADMIN_TOKEN (named `admin`) and the named ADMIN_TOKENS, beside or instead of ADMIN_TOKEN.
 */
import request from 'supertest';
import { captureLogs } from '@platform/testing';
import { ADMIN_TOKEN, bearerOf, INVALID_CLIENT, startAuth, type AuthHarness } from './harness';

const OPS = 'ops-admin-token-for-auth-tests-0123456789';
const AUDIT = 'audit-admin-token-for-auth-tests-0123456789';

const introspect = (h: AuthHarness, token: string, adminToken: string) =>
  request(h.url)
    .post('/oauth/introspect')
    .type('form')
    .set('Authorization', `Bearer ${adminToken}`)
    .send(new URLSearchParams({ token }).toString());

async function liveToken(h: AuthHarness): Promise<{ token: string; accountId: number }> {
  const account = await h.account({ credits: { 1: 100 } });
  const res = await request(h.url).post('/oauth/token').set('Authorization', bearerOf(account.apiKey)).send({ grantType: 'access_token' });
  expect(res.status).toBe(200);
  return { token: res.body.accessToken as string, accountId: account.id };
}

describe('introspection with ADMIN_TOKENS beside ADMIN_TOKEN', () => {
  const logs = captureLogs('auth');
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ env: { ADMIN_TOKENS: `ops=${OPS},audit=${AUDIT}` }, logger: logs.logger });
  });
  afterAll(async () => {
    await h.close();
  });

  it.each([
    ['ops', OPS],
    ['audit', AUDIT],
    ['admin', ADMIN_TOKEN],
  ])(
    'when the caller presents the admin token named %s, then the live token is described and the log names that actor',
    async (name, adminToken) => {
      const { token, accountId } = await liveToken(h);
      const res = await introspect(h, token, adminToken);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ active: true, sub: String(accountId), client_id: String(accountId) });
      expect(logs.lines().filter((line) => line.message === 'token introspected' && line.actor === name)).not.toHaveLength(0);
    },
  );

  it.each([
    ['a token named nowhere', `nobody-admin-token-for-auth-tests-0123456789`],
    ['a named token with one character more', `${OPS}x`],
    ['a named token with its last character cut', OPS.slice(0, -1)],
    ['the name=token entry itself', `ops=${OPS}`],
  ])('when the caller presents %s, then 401 invalid_client', async (_what, adminToken) => {
    const { token } = await liveToken(h);
    const res = await introspect(h, token, adminToken);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
  });
});

describe('introspection with ADMIN_TOKENS instead of ADMIN_TOKEN', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ env: { ADMIN_TOKEN: undefined, ADMIN_TOKENS: `ops=${OPS}` } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('when the caller presents the named token, then the live token is described', async () => {
    const { token, accountId } = await liveToken(h);
    const res = await introspect(h, token, OPS);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: true, sub: String(accountId) });
  });

  it('when the caller presents the harness ADMIN_TOKEN that is not configured, then 401 invalid_client', async () => {
    const { token } = await liveToken(h);
    const res = await introspect(h, token, ADMIN_TOKEN);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
  });
});
