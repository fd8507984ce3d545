import jwt from 'jsonwebtoken';
import { ClientCredentials } from 'simple-oauth2';
import request from 'supertest';
import { generateAccessToken, generateApiKey, hashSecret, signServiceJwt } from '@platform/credentials';
import { ADMIN_TOKEN, basicOf, bearerOf, INVALID_CLIENT, ISSUER, SERVICE_JWT_SECRET, startAuth, useAuth } from './harness';

const h = useAuth();

const withCredits = () => h.account({ credits: { 1: 100 } });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const grant = (fields: Record<string, string>, authorization?: string) => {
  const call = request(h.url).post('/oauth/token').type('form');
  if (authorization !== undefined) call.set('Authorization', authorization);
  return call.send(form(fields));
};
const introspect = (token: string, authorization?: string) => {
  const call = request(h.url).post('/oauth/introspect').type('form');
  if (authorization !== undefined) call.set('Authorization', authorization);
  return call.send(form({ token }));
};
const revoke = (fields: Record<string, string>, authorization?: string) => {
  const call = request(h.url).post('/oauth/revoke').type('form');
  if (authorization !== undefined) call.set('Authorization', authorization);
  return call.send(form(fields));
};
const seedToken = async (apiKey: string): Promise<string> =>
  (await request(h.url).post('/oauth/token').set('Authorization', bearerOf(apiKey)).send({ grantType: 'access_token' })).body
    .accessToken as string;
const serviceJwt = (overrides: Partial<{ audience: string; issuer: string }> = {}) =>
  `Bearer ${signServiceJwt({ issuer: overrides.issuer ?? 'user', audience: overrides.audience ?? 'auth', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 })}`;

describe('POST /oauth/token, RFC 6749 client credentials', () => {
  test('when the client authenticates with HTTP Basic, then 200 with a Bearer token for 3600 seconds, not to be cached', async () => {
    const account = await withCredits();
    const res = await grant({ grant_type: 'client_credentials' }, basicOf(account.id, account.apiKey));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^tk_/), token_type: 'Bearer', expires_in: 3600 });
  });

  test('when the client sends client_id and client_secret in the body with expires_in, then that lifetime is granted', async () => {
    const account = await withCredits();
    const res = await grant({
      grant_type: 'client_credentials',
      client_id: String(account.id),
      client_secret: account.apiKey,
      expires_in: '7200',
    });
    expect(res.status).toBe(200);
    expect(res.body.expires_in).toBe(7200);
  });

  test('when a token comes from the RFC flow, then it is the same kind of token as the seed flow’s and works as a credential', async () => {
    const account = await withCredits();
    const res = await grant({ grant_type: 'client_credentials' }, basicOf(account.id, account.apiKey));
    const answer = await introspect(res.body.access_token as string, `Bearer ${ADMIN_TOKEN}`);
    expect(answer.body).toMatchObject({ active: true, sub: String(account.id) });
  });

  test('when the client id is another account’s, then 401 invalid_client with the Basic challenge', async () => {
    const account = await withCredits();
    const other = await withCredits();
    const res = await grant({ grant_type: 'client_credentials' }, basicOf(other.id, account.apiKey));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
    expect(res.headers['www-authenticate']).toBe('Basic realm="auth"');
  });

  test.each([
    ['the secret is an unknown key', async () => basicOf((await withCredits()).id, generateApiKey())],
    [
      'the secret is an access token',
      async () => {
        const account = await withCredits();
        return basicOf(account.id, await seedToken(account.apiKey));
      },
    ],
    [
      'the client id is not a number',
      async () => {
        const account = await withCredits();
        return basicOf('me', account.apiKey);
      },
    ],
    [
      'every pool of the account is at 0',
      async () => {
        const account = await h.account({ credits: { 1: 0 } });
        return basicOf(account.id, account.apiKey);
      },
    ],
    ['the Basic value does not decode', () => Promise.resolve('Basic %%%')],
  ])('when %s, then 401 invalid_client', async (_name, authorization) => {
    const res = await grant({ grant_type: 'client_credentials' }, await authorization());
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('when the client sends no credentials, then 401 invalid_client without a challenge', async () => {
    const res = await grant({ grant_type: 'client_credentials' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  test('when the body has client_secret but no client_id, then 401 invalid_client', async () => {
    const account = await withCredits();
    const res = await grant({ grant_type: 'client_credentials', client_secret: account.apiKey });
    expect(res.status).toBe(401);
  });

  test('when the client uses the seed’s Bearer key, then 401 invalid_client (the RFC flow authenticates clients)', async () => {
    const account = await withCredits();
    const res = await grant({ grant_type: 'client_credentials' }, bearerOf(account.apiKey));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
  });

  test('when the grant type is not client_credentials, then 400 unsupported_grant_type', async () => {
    const account = await withCredits();
    const res = await grant({ grant_type: 'password' }, basicOf(account.id, account.apiKey));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unsupported_grant_type', error_description: 'The selected grant type is invalid.' });
  });

  test('when the grant type is empty, then 400 invalid_request', async () => {
    const account = await withCredits();
    const res = await grant({ grant_type: '' }, basicOf(account.id, account.apiKey));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The grant type field is required.' });
  });

  test('when expires_in is not one of the four lifetimes, then 400 invalid_request', async () => {
    const account = await withCredits();
    const res = await grant({ grant_type: 'client_credentials', expires_in: '99' }, basicOf(account.id, account.apiKey));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The selected expires in is invalid.' });
  });

  test('when the credentials are bad and the grant type too, then the client error comes first', async () => {
    const res = await grant({ grant_type: 'password' }, basicOf(1, generateApiKey()));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
  });

  test('when outputFormat=XML is asked for, then the RFC flow still answers JSON', async () => {
    const account = await withCredits();
    const res = await request(h.url)
      .post('/oauth/token?outputFormat=XML')
      .type('form')
      .set('Authorization', basicOf(account.id, account.apiKey))
      .send(form({ grant_type: 'client_credentials' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('an unmodified OAuth client library (simple-oauth2)', () => {
  test.each([['header'], ['body']] as const)(
    'when simple-oauth2 authenticates in the %s, then it obtains a working token',
    async (authorizationMethod) => {
      const account = await withCredits();
      const client = new ClientCredentials({
        client: { id: String(account.id), secret: account.apiKey },
        auth: { tokenHost: h.url },
        options: { authorizationMethod },
      });
      const accessToken = await client.getToken({});
      expect(accessToken.token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.stringMatching(/^tk_/) });
      expect(accessToken.expired()).toBe(false);
      const answer = await introspect(accessToken.token.access_token as string, basicOf(account.id, account.apiKey));
      expect(answer.body).toMatchObject({ active: true, client_id: String(account.id) });
    },
  );

  test('when simple-oauth2 uses a wrong secret, then the library reports the 401', async () => {
    const account = await withCredits();
    const client = new ClientCredentials({ client: { id: String(account.id), secret: generateApiKey() }, auth: { tokenHost: h.url } });
    await expect(client.getToken({})).rejects.toMatchObject({ output: { statusCode: 401 } });
  });
});

describe('POST /oauth/introspect (RFC 7662)', () => {
  test('when the admin token asks about a live token, then it is active with its account, times and type', async () => {
    const account = await withCredits();
    const issued = await seedToken(account.apiKey);
    const before = Math.floor(Date.now() / 1000);
    const res = await introspect(issued, `Bearer ${ADMIN_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      active: true,
      client_id: String(account.id),
      sub: String(account.id),
      exp: expect.any(Number),
      iat: expect.any(Number),
      token_type: 'Bearer',
    });
    expect(res.body.exp - res.body.iat).toBe(3600);
    expect(Math.abs(res.body.iat - before)).toBeLessThanOrEqual(2);
  });

  test('when a service JWT with audience auth asks, then the token is introspected', async () => {
    const account = await withCredits();
    const res = await introspect(await seedToken(account.apiKey), serviceJwt({ issuer: 'categorization' }));
    expect(res.body).toMatchObject({ active: true, sub: String(account.id) });
  });

  test('when the account itself asks with HTTP Basic, then its own token is active', async () => {
    const account = await withCredits();
    const res = await introspect(await seedToken(account.apiKey), basicOf(account.id, account.apiKey));
    expect(res.body).toMatchObject({ active: true });
  });

  test('when another account asks with its Basic credentials, then {"active": false} only', async () => {
    const account = await withCredits();
    const other = await withCredits();
    const res = await introspect(await seedToken(account.apiKey), basicOf(other.id, other.apiKey));
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"active":false}');
  });

  test.each([
    ['unknown', () => Promise.resolve(generateAccessToken(hashSecret(generateApiKey())))],
    ['garbled', () => Promise.resolve('tk_garbled')],
    ['an API key', () => Promise.resolve(generateApiKey())],
    [
      'revoked',
      async () => {
        const account = await withCredits();
        const issued = await seedToken(account.apiKey);
        await revoke({ token: issued }, basicOf(account.id, account.apiKey));
        return issued;
      },
    ],
  ])('when the token is %s, then {"active": false} only', async (_name, make) => {
    const res = await introspect(await make(), `Bearer ${ADMIN_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"active":false}');
  });

  test.each([
    ['no credentials', undefined],
    ['a wrong admin token', 'Bearer not-the-admin-token'],
    ['a JWT for another audience', 'jwt:user'],
    ['a JWT signed with another secret', 'jwt:secret'],
    ['a JWT that claims more than five minutes', 'jwt:long'],
    ['a JWT with no issuer', 'jwt:noiss'],
    ['an account key with a wrong client id', 'basic:other'],
    ['an access token as Bearer', 'token'],
  ])('when the caller presents %s, then 401 invalid_client', async (_name, kind) => {
    const account = await withCredits();
    const issued = await seedToken(account.apiKey);
    const now = Math.floor(Date.now() / 1000);
    const authorization: Record<string, string | undefined> = {
      'jwt:user': serviceJwt({ audience: 'user' }),
      'jwt:secret': `Bearer ${jwt.sign({ iss: 'user', aud: 'auth', exp: now + 60 }, 'another-secret-another-secret-another')}`,
      'jwt:long': `Bearer ${jwt.sign({ iss: 'user', aud: 'auth', exp: now + 3600 }, SERVICE_JWT_SECRET)}`,
      'jwt:noiss': `Bearer ${jwt.sign({ aud: 'auth', exp: now + 60 }, SERVICE_JWT_SECRET)}`,
      'basic:other': basicOf(account.id + 1, account.apiKey),
      token: `Bearer ${issued}`,
    };
    const res = await introspect(issued, kind === undefined ? undefined : (authorization[kind] ?? kind));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
  });

  test('when a Bearer caller is refused, then the challenge names the auth realm', async () => {
    const res = await introspect(generateAccessToken(hashSecret(generateApiKey())), 'Bearer wrong');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="auth", error="invalid_token", error_description="invalid_credential"');
  });

  test('when the token parameter is missing, then 400 invalid_request', async () => {
    const res = await request(h.url).post('/oauth/introspect').type('form').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send('');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The token field is required.' });
  });
});

describe('POST /oauth/revoke (RFC 7009)', () => {
  test('when the account revokes its own token with HTTP Basic, then 200 and the token is dead', async () => {
    const account = await withCredits();
    const issued = await seedToken(account.apiKey);
    const res = await revoke({ token: issued, token_type_hint: 'access_token' }, basicOf(account.id, account.apiKey));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await introspect(issued, `Bearer ${ADMIN_TOKEN}`)).body).toEqual({ active: false });
  });

  test('when the account revokes with the seed’s Bearer key, then the token is dead', async () => {
    const account = await withCredits();
    const issued = await seedToken(account.apiKey);
    expect((await revoke({ token: issued }, bearerOf(account.apiKey))).status).toBe(200);
    expect((await introspect(issued, `Bearer ${ADMIN_TOKEN}`)).body).toEqual({ active: false });
  });

  test('when the account revokes with client_id and client_secret in the body, then the token is dead', async () => {
    const account = await withCredits();
    const issued = await seedToken(account.apiKey);
    expect((await revoke({ token: issued, client_id: String(account.id), client_secret: account.apiKey })).status).toBe(200);
    expect((await introspect(issued, `Bearer ${ADMIN_TOKEN}`)).body).toEqual({ active: false });
  });

  test('when one token is revoked, then the account’s other tokens stay valid', async () => {
    const account = await withCredits();
    const first = await seedToken(account.apiKey);
    const second = await seedToken(account.apiKey);
    await revoke({ token: first }, basicOf(account.id, account.apiKey));
    expect((await introspect(second, `Bearer ${ADMIN_TOKEN}`)).body).toMatchObject({ active: true });
  });

  test('when an account tries to revoke another account’s token, then 200 but the token stays valid', async () => {
    const account = await withCredits();
    const other = await withCredits();
    const issued = await seedToken(account.apiKey);
    expect((await revoke({ token: issued }, basicOf(other.id, other.apiKey))).status).toBe(200);
    expect((await introspect(issued, `Bearer ${ADMIN_TOKEN}`)).body).toMatchObject({ active: true });
  });

  test('when the token does not exist, then 200 all the same', async () => {
    const account = await withCredits();
    expect((await revoke({ token: generateAccessToken(hashSecret(generateApiKey())) }, basicOf(account.id, account.apiKey))).status).toBe(
      200,
    );
    expect((await revoke({ token: 'garbage' }, basicOf(account.id, account.apiKey))).status).toBe(200);
  });

  test('when an account with every pool at 0 revokes its token, then it may (revocation needs no credits)', async () => {
    const account = await withCredits();
    const issued = await seedToken(account.apiKey);
    await h.pool.query('UPDATE pool_balances SET credits = 0 WHERE account_id = $1', [account.id]);
    await h.access.setPoolCredit([account.keyHash], 1, false);
    expect((await revoke({ token: issued }, basicOf(account.id, account.apiKey))).status).toBe(200);
    expect((await introspect(issued, `Bearer ${ADMIN_TOKEN}`)).body).toEqual({ active: false });
  });

  test.each([
    ['no credentials', undefined],
    ['an unknown key', 'unknown'],
    ['the admin token', `Bearer ${ADMIN_TOKEN}`],
  ])('when the caller presents %s, then 401 invalid_client', async (_name, authorization) => {
    const res = await revoke(
      { token: generateAccessToken(hashSecret(generateApiKey())) },
      authorization === 'unknown' ? basicOf(1, generateApiKey()) : authorization,
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_CLIENT);
  });

  test('when the token parameter is missing, then 400 invalid_request', async () => {
    const account = await withCredits();
    const res = await revoke({}, basicOf(account.id, account.apiKey));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The token field is required.' });
  });

  test.each(['/oauth/revoke', '/oauth/introspect'])(
    'when %s gets the token in the query string only, then 400 invalid_request and the token stays live (the body is the only place)',
    async (path) => {
      const account = await withCredits();
      const issued = await seedToken(account.apiKey);
      const res = await request(h.url)
        .post(path)
        .query({ token: issued })
        .type('form')
        .set('Authorization', basicOf(account.id, account.apiKey))
        .send('');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The token field is required.' });
      const live = await request(h.url)
        .post('/oauth/introspect')
        .type('form')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send(`token=${issued}`);
      expect(live.body).toMatchObject({ active: true });
    },
  );
});

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  test('when the metadata is fetched, then it names the token, introspection and revocation endpoints under AUTH_URL', async () => {
    const res = await request(h.url).get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: ISSUER,
      token_endpoint: `${ISSUER}/oauth/token`,
      introspection_endpoint: `${ISSUER}/oauth/introspect`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
  });

  test('when a request carries a forged Host or X-Forwarded-Host, then the cacheable metadata still names AUTH_URL', async () => {
    const res = await request(h.url)
      .get('/.well-known/oauth-authorization-server')
      .set('Host', 'attacker.example')
      .set('X-Forwarded-Host', 'attacker.example')
      .set('X-Forwarded-Proto', 'https');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('attacker');
    expect(res.body.issuer).toBe(ISSUER);
  });

  test('when AUTH_URL is configured, then it is the issuer', async () => {
    const other = await startAuth({ env: { AUTH_URL: 'https://auth.example.test/' } });
    try {
      const res = await request(other.url).get('/.well-known/oauth-authorization-server');
      expect(res.body.issuer).toBe('https://auth.example.test');
      expect(res.body.token_endpoint).toBe('https://auth.example.test/oauth/token');
    } finally {
      await other.close();
    }
  });
});

describe('GET /openapi.json', () => {
  test('when the document is fetched, then it is OpenAPI 3.1 and describes the auth endpoints', async () => {
    const res = await request(h.url).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths as object).sort()).toEqual([
      '/.well-known/oauth-authorization-server',
      '/oauth/introspect',
      '/oauth/revoke',
      '/oauth/token',
    ]);
  });
});
