/**
 * CONTRACT §4.1/§9: `POST /oauth/introspect` (RFC 7662).
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { type TestAccount } from '@platform/testing';
import {
  ADMIN_TOKEN,
  JSON_TYPE,
  SERVICE_JWT_SECRET,
  basic,
  bearer,
  expectBody,
  nowSeconds,
  serviceJwt,
  unknownKey,
  usePlatform,
  type Reply,
} from './support';

const { platform, freshKey, rotate, introspect, revoke, isActive } = usePlatform();

describe('§4.1/§9 POST /oauth/introspect (RFC 7662)', () => {
  const INACTIVE = { active: false };

  function expectLive(reply: Reply, account: TestAccount, lifetime: number): void {
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    const body = reply.json() as Record<string, unknown>;
    expect(body).toEqual({
      active: true,
      client_id: String(account.id),
      sub: String(account.id),
      exp: expect.any(Number),
      iat: expect.any(Number),
      token_type: 'Bearer',
    });
    expect(Math.abs((body.iat as number) - nowSeconds())).toBeLessThanOrEqual(5);
    expect((body.exp as number) - (body.iat as number)).toBe(lifetime);
  }

  it.each<[string, (account: TestAccount) => Record<string, string>]>([
    ['the admin token as Bearer', () => bearer(ADMIN_TOKEN)],
    ['a service JWT with audience auth', () => bearer(serviceJwt({ aud: 'auth', iss: 'product-1' }))],
    ['HTTP Basic of the token’s own account', (account) => basic(String(account.id), account.apiKey)],
  ])(
    'when a live token is introspected by %s, then {active, client_id, sub (account id strings), exp, iat, token_type}',
    async (_caller, headers) => {
      const account = await platform.account({ 1: 5 });
      const token = await platform.token(account.apiKey, 7200);
      expectLive(await introspect(token, headers(account)), account, 7200);
    },
  );

  it.each<[string, () => Promise<string>]>([
    ['unknown', () => Promise.resolve(`tk_${'A'.repeat(49)}`)],
    ['garbled', () => Promise.resolve('garbage')],
    ['an API key', () => freshKey()],
    [
      'revoked',
      async () => {
        const account = await platform.account({ 1: 5 });
        const token = await platform.token(account.apiKey);
        expect((await revoke(token, basic(String(account.id), account.apiKey))).status).toBe(200);
        return token;
      },
    ],
    [
      'issued before a key rotation',
      async () => {
        const apiKey = await freshKey();
        const token = await platform.token(apiKey);
        expect((await rotate(apiKey)).status).toBe(200);
        return token;
      },
    ],
  ])('when the token is %s, then exactly {"active":false}', async (_case, token) => {
    expectBody(await introspect(await token()), 200, INACTIVE);
  });

  it('when another account introspects by its own Basic credentials, then {"active":false} only', async () => {
    const [owner, other] = [await platform.account({ 1: 5 }), await platform.account({ 1: 5 })];
    const token = await platform.token(owner.apiKey);
    expectBody(await introspect(token, basic(String(other.id), other.apiKey)), 200, INACTIVE);
    expect(await isActive(token)).toMatchObject({ active: true });
  });

  it.each<[string, () => Promise<Record<string, string>>]>([
    ['no credential', () => Promise.resolve({})],
    ['a wrong admin token', () => Promise.resolve(bearer(`${ADMIN_TOKEN}x`))],
    ['a service JWT with audience user', () => Promise.resolve(bearer(serviceJwt({ aud: 'user' })))],
    ['a service JWT whose exp is 10 minutes ahead', () => Promise.resolve(bearer(serviceJwt({ aud: 'auth', exp: nowSeconds() + 600 })))],
    ['an expired service JWT', () => Promise.resolve(bearer(serviceJwt({ aud: 'auth', iat: nowSeconds() - 120, exp: nowSeconds() - 60 })))],
    [
      'a service JWT signed with another secret',
      () => Promise.resolve(bearer(serviceJwt({ aud: 'auth' }, { secret: `${SERVICE_JWT_SECRET}-other` }))),
    ],
    ['Basic with an unknown key', async () => basic(String((await platform.account({ 1: 5 })).id), unknownKey())],
    ['an access token as Bearer', async () => bearer(await platform.token(await freshKey()))],
  ])('when the caller presents %s, then 401', async (_case, headers) => {
    const token = await platform.token(await freshKey());
    const reply = await introspect(token, await headers());
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 401, type: JSON_TYPE });
  });
});
