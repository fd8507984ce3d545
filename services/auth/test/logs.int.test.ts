import { ClientCredentials } from 'simple-oauth2';
import request from 'supertest';
import { fingerprint } from '@platform/runtime';
import { generateApiKey, hashSecret, signServiceJwt } from '@platform/credentials';
import { captureLogs } from '@platform/testing';
import { ADMIN_TOKEN, basicOf, bearerOf, rotateKey, SERVICE_JWT_SECRET, startAuth, type AuthHarness } from './harness';

describe('logs of a full token lifecycle', () => {
  const logs = captureLogs('auth');
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ logger: logs.logger });
  });
  afterAll(async () => {
    await h.close();
  });

  test('when keys and tokens go through issuance, use, introspection, revocation, rotation and failures, then none of them reaches a log line', async () => {
    const account = await h.account({ credits: { 1: 100 } });
    const secrets: string[] = [account.apiKey, Buffer.from(account.apiKey).toString('base64'), ADMIN_TOKEN, SERVICE_JWT_SECRET];
    const tokens: string[] = [];
    const keep = (token: unknown): string => {
      expect(typeof token).toBe('string');
      tokens.push(token as string);
      return token as string;
    };

    // Issuance: seed flow (JSON, XML), RFC flow, an OAuth library.
    const seed = keep(
      (await request(h.url).post('/oauth/token').set('Authorization', bearerOf(account.apiKey)).send({ grantType: 'access_token' })).body
        .accessToken,
    );
    const xml = await request(h.url)
      .post('/oauth/token?outputFormat=xml')
      .set('Authorization', bearerOf(account.apiKey))
      .send({ grantType: 'access_token' });
    keep(/<accessToken>([^<]+)<\/accessToken>/.exec(xml.text)?.[1]);
    keep(
      (
        await request(h.url)
          .post('/oauth/token')
          .type('form')
          .set('Authorization', basicOf(account.id, account.apiKey))
          .send('grant_type=client_credentials')
      ).body.access_token,
    );
    const library = new ClientCredentials({ client: { id: String(account.id), secret: account.apiKey }, auth: { tokenHost: h.url } });
    keep((await library.getToken({})).token.access_token);

    // Use: introspection by the admin token, a service JWT and the account itself.
    const jwt = signServiceJwt({ issuer: 'user', audience: 'auth', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
    secrets.push(jwt);
    for (const authorization of [`Bearer ${ADMIN_TOKEN}`, `Bearer ${jwt}`, basicOf(account.id, account.apiKey)]) {
      const res = await request(h.url).post('/oauth/introspect').type('form').set('Authorization', authorization).send(`token=${seed}`);
      expect(res.body.active).toBe(true);
    }

    // Failures: a token where a key belongs, the key in a malformed body, a wrong secret.
    expect(
      (await request(h.url).post('/oauth/token').set('Authorization', `Bearer ${seed}`).send({ grantType: 'access_token' })).status,
    ).toBe(401);
    expect(
      (
        await request(h.url)
          .post('/oauth/token')
          .set('Content-Type', 'application/json')
          .send(`{"apiKey": "${account.apiKey}", "token": "${seed}"`)
      ).status,
    ).toBe(400);
    expect(
      (await request(h.url).post('/oauth/introspect').type('form').set('Authorization', `Bearer ${ADMIN_TOKEN}x`).send(`token=${seed}`))
        .status,
    ).toBe(401);

    // Revocation, then rotation (revokes the rest), then the old and the new key.
    expect(
      (
        await request(h.url)
          .post('/oauth/revoke')
          .type('form')
          .set('Authorization', basicOf(account.id, account.apiKey))
          .send(`token=${seed}`)
      ).status,
    ).toBe(200);
    const newKey = generateApiKey();
    secrets.push(newKey, Buffer.from(newKey).toString('base64'));
    await rotateKey(h, account, hashSecret(newKey));
    expect(
      (await request(h.url).post('/oauth/token').set('Authorization', bearerOf(account.apiKey)).send({ grantType: 'access_token' })).status,
    ).toBe(401);
    keep(
      (await request(h.url).post('/oauth/token').set('Authorization', bearerOf(newKey)).send({ grantType: 'access_token' })).body
        .accessToken,
    );

    const text = logs.text();
    expect(tokens).toHaveLength(5);
    for (const secret of [...secrets, ...tokens]) expect(text).not.toContain(secret);
    // Nor the token bodies without their prefix, nor any string shaped like a key or a token.
    for (const token of tokens) expect(text).not.toContain(token.slice(3, 30));
    expect(text).not.toMatch(/at_[A-Za-z0-9]{29}/);
    expect(text).not.toMatch(/tk_[A-Za-z0-9_-]{20,}/);

    // What is logged instead: a non-reversible fingerprint per issued token, with the account.
    const issued = logs.lines().filter((line) => line.message === 'token issued');
    expect(issued).toHaveLength(5);
    expect(issued.map((line) => line.fingerprint)).toEqual(tokens.map((token) => fingerprint(token)));
    expect(issued.every((line) => line.accountId === account.id)).toBe(true);
    expect(logs.lines().some((line) => line.message === 'request' && line.status === '401')).toBe(true);
  });
});
