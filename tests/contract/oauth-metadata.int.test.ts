/**
 * CONTRACT §4.1: `GET /.well-known/oauth-authorization-server` (RFC 8414).
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { JSON_TYPE, basic, usePlatform } from './support';

const { platform, send } = usePlatform();

describe('§4.1 GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  it('when fetched, then 200 JSON naming the issuer and the token, introspection and revocation endpoints, which answer there', async () => {
    const reply = await send('auth', '/.well-known/oauth-authorization-server');
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    const body = reply.json() as Record<string, string>;
    expect(typeof body.issuer).toBe('string');
    const endpoints = { token_endpoint: '/oauth/token', introspection_endpoint: '/oauth/introspect', revocation_endpoint: '/oauth/revoke' };
    for (const [member, path] of Object.entries(endpoints)) expect(new URL(body[member] ?? 'x:').pathname).toBe(path);
    const account = await platform.account({ 1: 5 });
    const issued = await fetch(body.token_endpoint ?? '', {
      method: 'POST',
      headers: { ...basic(String(account.id), account.apiKey), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(issued.status).toBe(200);
  });
});
