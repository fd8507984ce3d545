import request from 'supertest';
import { generateAccessToken, hashSecret } from '@platform/credentials';
import { ADMIN_TOKEN, bearerOf, INVALID_CLIENT, useAuth } from './harness';

// A browser session keeps only its access token (never the API key), so RFC 7009 revocation
// also accepts the account's live token as `Authorization: Bearer` (CONTRACT §3: a token works
// where the key does, except to mint tokens and to rotate the key).

const h = useAuth();

const revoke = (token: string, bearer: string) =>
  request(h.url)
    .post('/oauth/revoke')
    .type('form')
    .set('Authorization', `Bearer ${bearer}`)
    .send(new URLSearchParams({ token }).toString());
const introspect = async (token: string) =>
  (await request(h.url).post('/oauth/introspect').type('form').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(`token=${token}`))
    .body as {
    active: boolean;
  };
const seedToken = async (apiKey: string): Promise<string> =>
  (await request(h.url).post('/oauth/token').set('Authorization', bearerOf(apiKey)).send({ grantType: 'access_token' })).body
    .accessToken as string;

describe('POST /oauth/revoke with the access token as Bearer', () => {
  test('when a session revokes its own token with that token, then 200 and the token is inactive', async () => {
    const account = await h.account({ credits: { 1: 5 } });
    const token = await seedToken(account.apiKey);
    const res = await revoke(token, token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(await introspect(token)).toEqual({ active: false });
  });

  test('when one token of the account revokes another of its tokens, then that one is inactive and the first stays live', async () => {
    const account = await h.account({ credits: { 1: 5 } });
    const first = await seedToken(account.apiKey);
    const second = await seedToken(account.apiKey);
    expect((await revoke(second, first)).status).toBe(200);
    expect(await introspect(second)).toEqual({ active: false });
    expect(await introspect(first)).toMatchObject({ active: true });
  });

  test('when the token names another account’s token, then 200 and that token stays live', async () => {
    const mine = await seedToken((await h.account({ credits: { 1: 5 } })).apiKey);
    const theirs = await seedToken((await h.account({ credits: { 1: 5 } })).apiKey);
    expect((await revoke(theirs, mine)).status).toBe(200);
    expect(await introspect(theirs)).toMatchObject({ active: true });
  });

  test('when the Bearer token is unknown or already revoked, then 401 invalid_client with WWW-Authenticate', async () => {
    const account = await h.account({ credits: { 1: 5 } });
    const token = await seedToken(account.apiKey);
    expect((await revoke(token, token)).status).toBe(200);
    for (const bearer of [token, generateAccessToken(hashSecret(account.apiKey))]) {
      const res = await revoke(token, bearer);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID_CLIENT);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="auth", error="invalid_token", error_description="invalid_credential"');
    }
  });
});
