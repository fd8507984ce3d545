/**
 * CONTRACT §4.1/§9: failed attempts per client address and issuances per account, on auth services
 * started with low limits.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import {
  ADMIN_TOKEN,
  GRANT,
  LOW_LIMIT,
  TOO_MANY,
  basic,
  bearer,
  call,
  expectBody,
  expectRetryAfter,
  seedBearer,
  unknownKey,
  usePlatform,
  type HttpRequest,
  type Reply,
} from './support';

const { platform, freshKey } = usePlatform({ limitedAuth: true });

describe('§4.1/§9 limits: failed attempts per address, issuances per account', () => {
  const attempt = (base: 'strictAuth' | 'proxiedAuth', request: HttpRequest, path = '/oauth/token'): Promise<Reply> =>
    call(platform[base], path, request);
  const fromAddress = (address: string | undefined, headers: Record<string, string> = {}): Record<string, string> =>
    address === undefined ? headers : { ...headers, 'X-Forwarded-For': address };
  const failedToken = (base: 'strictAuth' | 'proxiedAuth', address?: string): Promise<Reply> =>
    attempt(base, { headers: fromAddress(address, seedBearer(unknownKey())), json: GRANT });

  function expectTooMany(reply: Reply): void {
    expectBody(reply, 429, TOO_MANY);
    expectRetryAfter(reply);
    expect(Number(reply.header('retry-after'))).toBeLessThanOrEqual(60);
  }

  it('when an address has failed exactly AUTH_FAILURES_PER_IP times, then it is not yet over the limit: a valid request is served', async () => {
    const address = '198.51.100.11';
    for (let index = 0; index < LOW_LIMIT; index += 1) expect((await failedToken('proxiedAuth', address)).status).toBe(401);
    const reply = await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(await freshKey())), json: GRANT });
    expect(reply.status).toBe(200);
  });

  it('when token, introspection and revocation 401s take an address over the limit, then its failing requests get 429 with Retry-After on all three endpoints, while valid requests are served', async () => {
    const address = '198.51.100.22';
    const failures = [
      await failedToken('proxiedAuth', address),
      await attempt('proxiedAuth', { headers: fromAddress(address, bearer('wrong-admin')), form: { token: 'x' } }, '/oauth/introspect'),
      await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(unknownKey())), form: { token: 'x' } }, '/oauth/revoke'),
    ];
    expect(failures.map((reply) => reply.status)).toEqual([401, 401, 401]);
    expectTooMany(await failedToken('proxiedAuth', address));
    expectTooMany(
      await attempt('proxiedAuth', { headers: fromAddress(address, bearer('wrong-admin')), form: { token: 'x' } }, '/oauth/introspect'),
    );
    expectTooMany(
      await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(unknownKey())), form: { token: 'x' } }, '/oauth/revoke'),
    );

    // CONTRACT §9: a valid credential is still served, so one client cannot lock out the others behind its address.
    const account = await platform.account({ 1: 5 });
    expect((await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(account.apiKey)), json: GRANT })).status).toBe(200);
    const grant = await attempt('proxiedAuth', {
      headers: fromAddress(address, basic(String(account.id), account.apiKey)),
      form: { grant_type: 'client_credentials' },
    });
    expect(grant.status).toBe(200);
    expect(
      (await attempt('proxiedAuth', { headers: fromAddress(address, bearer(ADMIN_TOKEN)), form: { token: 'x' } }, '/oauth/introspect'))
        .status,
    ).toBe(200);
    expect(
      (await attempt('proxiedAuth', { headers: fromAddress(address, seedBearer(account.apiKey)), form: { token: 'x' } }, '/oauth/revoke'))
        .status,
    ).toBe(200);
  });

  it('with TRUST_PROXY naming the proxy, X-Forwarded-For is the client address: another address still gets its plain 401', async () => {
    for (let index = 0; index <= LOW_LIMIT; index += 1) await failedToken('proxiedAuth', '198.51.100.33');
    expectTooMany(await failedToken('proxiedAuth', '198.51.100.33'));
    expect((await failedToken('proxiedAuth', '198.51.100.34')).status).toBe(401);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: a client over the limit cannot escape by sending it', async () => {
    for (let index = 0; index < LOW_LIMIT; index += 1) expect((await failedToken('strictAuth', `203.0.113.${index}`)).status).toBe(401);
    expectTooMany(await failedToken('strictAuth', '203.0.113.99'));
    expectTooMany(await failedToken('strictAuth', '203.0.113.100'));
    expect((await attempt('strictAuth', { headers: fromAddress('203.0.113.100', seedBearer(await freshKey())), json: GRANT })).status).toBe(
      200,
    );
  });

  it('when one account goes over TOKEN_RATE_PER_ACCOUNT issuances a minute, both flows counting, then 429 with Retry-After; other accounts are served', async () => {
    const account = await platform.account({ 1: 5 });
    const seed = (): Promise<Reply> => call(platform.meteredAuth, '/oauth/token', { headers: seedBearer(account.apiKey), json: GRANT });
    const rfc = (): Promise<Reply> =>
      call(platform.meteredAuth, '/oauth/token', {
        headers: basic(String(account.id), account.apiKey),
        form: { grant_type: 'client_credentials' },
      });
    const statuses = [(await seed()).status, (await rfc()).status, (await seed()).status];
    expect(statuses).toEqual([200, 200, 200]);
    expectTooMany(await rfc());
    expectTooMany(await seed());
    expect((await call(platform.meteredAuth, '/oauth/token', { headers: seedBearer(await freshKey()), json: GRANT })).status).toBe(200);
  });
});
