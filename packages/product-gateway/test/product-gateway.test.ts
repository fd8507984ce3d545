import type { Express } from 'express';
import request from 'supertest';
import { createHttpApp } from '@platform/kernel';
import { Health } from '@platform/runtime';
import { generateAccessToken, generateApiKey, hashSecret } from '@platform/credentials';
import { silentLogger } from '@platform/testing';
import { acceptedCall, createProductGateway, type ProductGateway, type ProductGatewayOptions } from '../src';
import { startFakeUsageApi, type FakeUsageApi } from './fake-usage-api';

const SECRET = 'product-gateway-test-secret-0123456789abcdef';
const ACCESS_RESTRICTED = 'Access restricted. Check credits balance or enter the correct API key.';
const PATH = '/whoisserver/WhoisService';
const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** Every gateway the tests made, closed at the end (each keeps connections alive). */
const gateways: ProductGateway[] = [];

/** A product app of the family, as a product team would build it. */
function productApp(usage: FakeUsageApi, productId: number, extra: Partial<ProductGatewayOptions> = {}): Express {
  const http = createHttpApp({
    service: `product-${productId}`,
    logger: silentLogger(),
    health: new Health({}),
    openapi: {},
    envelope: 'errorMessage',
  });
  const gateway = createProductGateway({ userUrl: usage.url, serviceJwtSecret: SECRET, productId, retries: 2, timeoutMs: 2000, ...extra });
  gateways.push(gateway);
  http.app.use(gateway.routes(PATH, (call) => ({ WhoisRecord: { domainName: call.domainName, creditsLeft: call.credits } })));
  http.app.get('/metered', gateway.meter, (_req, res) => {
    res.json({ accountId: acceptedCall(res).accountId });
  });
  return http.finish();
}

describe('product gateway (credential-and-credits middleware)', () => {
  let usage: FakeUsageApi;
  let whois: Express;
  let bulkWhois: Express;
  let nextAccount = 1000;

  /** An account with a key and a token, holding `credits` in the lookup pool. */
  function anAccount(credits: number): { accountId: number; apiKey: string; token: string } {
    nextAccount += 1;
    const account = { accountId: nextAccount, apiKey: generateApiKey(), token: generateAccessToken(hashSecret(generateApiKey())) };
    usage.addCredential(account.apiKey, account.accountId);
    usage.addCredential(account.token, account.accountId);
    usage.setCredits(account.accountId, 1, credits);
    return account;
  }

  beforeAll(async () => {
    usage = await startFakeUsageApi(SECRET);
    whois = productApp(usage, 1);
    bulkWhois = productApp(usage, 24);
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await usage.close();
  });

  describe('accepted calls', () => {
    it('when GET carries the API key in apiKey, then 200 and one credit is debited', async () => {
      const account = anAccount(10);
      const response = await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName: 'Example.COM' }).expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual({ WhoisRecord: { domainName: 'example.com', creditsLeft: 9 } });
      expect(usage.credits(account.accountId, 1)).toBe(9);
    });

    it('when GET carries a token as Bearer, then 200', async () => {
      const account = anAccount(10);
      await request(whois).get(PATH).query({ domainName: 'example.org' }).set('Authorization', `Bearer ${account.token}`).expect(200);
      expect(usage.credits(account.accountId, 1)).toBe(9);
    });

    it('when POST carries a JSON body with a token or a key, then 200 each', async () => {
      const account = anAccount(10);
      await request(whois).post(PATH).set('Authorization', `Bearer ${account.token}`).send({ domainName: 'example.net' }).expect(200);
      await request(whois).post(PATH).send({ domainName: 'example.net', apiKey: account.apiKey }).expect(200);
      expect(usage.credits(account.accountId, 1)).toBe(8);
    });

    it('when the product is Bulk WHOIS API (24), then the shared lookup pool of WHOIS API (1) is debited', async () => {
      const account = anAccount(5);
      await request(bulkWhois).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(200);
      expect(usage.credits(account.accountId, 1)).toBe(4);
      expect(usage.credits(account.accountId, 24)).toBe(4);
      expect(usage.calls.at(-1)?.body).toMatchObject({ productId: 24, units: 1 });
    });

    it('when outputFormat is XML, then the lookup result is XML', async () => {
      const account = anAccount(5);
      const response = await request(whois)
        .get(PATH)
        .query({ apiKey: account.apiKey, domainName: 'bücher.de', outputFormat: 'xml' })
        .expect(200);
      expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(response.text).toBe(
        `${XML_DECLARATION}<xml><WhoisRecord><domainName>xn--bcher-kva.de</domainName><creditsLeft>4</creditsLeft></WhoisRecord></xml>`,
      );
    });

    it('when the usage API is called, then with a short-lived HS256 service JWT for audience user and a fresh requestId', async () => {
      const account = anAccount(5);
      await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(200);
      await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(200);
      const [first, second] = usage.calls.slice(-2);
      expect(first?.claims).toMatchObject({ iss: 'product-1', aud: 'user' });
      expect((first?.claims?.exp ?? 0) - Date.now() / 1000).toBeLessThanOrEqual(300);
      expect(first?.body).toMatchObject({ credential: account.apiKey, productId: 1, units: 1 });
      expect(first?.body.requestId).toEqual(expect.any(String));
      expect(first?.body.requestId).not.toBe(second?.body.requestId);
    });

    it('when the usage API fails with 503 once, then the call is retried with the same requestId and debited once', async () => {
      const account = anAccount(5);
      const before = usage.calls.length;
      usage.failNext(1, 503);
      await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(200);
      const attempts = usage.calls.slice(before);
      expect(attempts).toHaveLength(2);
      expect(attempts[0]?.body.requestId).toBe(attempts[1]?.body.requestId);
      expect(usage.credits(account.accountId, 1)).toBe(4);
    });

    it('when calls follow one another, then they share one kept-alive connection, and each request carries a service JWT of its own (a fresh jti)', async () => {
      const usageApi = await startFakeUsageApi(SECRET);
      const http = createHttpApp({ service: 'p', logger: silentLogger(), health: new Health({}), openapi: {}, envelope: 'errorMessage' });
      const gateway = createProductGateway({ userUrl: usageApi.url, serviceJwtSecret: SECRET, productId: 1 });
      http.app.use(gateway.routes(PATH, () => ({ ok: true })));
      const app = http.finish();
      try {
        const account = { apiKey: generateApiKey() };
        usageApi.addCredential(account.apiKey, 77);
        usageApi.setCredits(77, 1, 10);
        for (let call = 0; call < 5; call += 1) {
          await request(app).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(200);
        }
        expect(usageApi.calls).toHaveLength(5);
        expect(usageApi.connections()).toBe(1);
        const jtis = new Set(usageApi.calls.map((call) => call.claims?.jti));
        expect(jtis.size).toBe(5);
        expect([...jtis].every((jti) => typeof jti === 'string' && jti.length === 36)).toBe(true);
      } finally {
        await gateway.close();
        await usageApi.close();
      }
    });

    it('when a route mounts the meter itself, then acceptedCall(res) gives the account', async () => {
      const account = anAccount(5);
      const response = await request(whois).get('/metered').query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(200);
      expect(response.body).toEqual({ accountId: account.accountId });
    });
  });

  describe('errors in the ErrorMessage envelope', () => {
    const errorJson = (errorCode: string, msg: string): unknown => ({ ErrorMessage: { errorCode, msg } });
    const errorXml = (errorCode: string, msg: string): string =>
      `${XML_DECLARATION}<ErrorMessage><errorCode>${errorCode}</errorCode><msg>${msg}</msg></ErrorMessage>`;

    it('when no credential is sent, then 401 AUTHENTICATE_01 in JSON and in XML, and the usage API is not called', async () => {
      const before = usage.calls.length;
      const json = await request(whois).get(PATH).query({ domainName: 'example.com' }).expect(401);
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(json.body).toEqual(errorJson('AUTHENTICATE_01', ACCESS_RESTRICTED));
      const xml = await request(whois).get(PATH).query({ domainName: 'example.com', outputFormat: 'XML' }).expect(401);
      expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(xml.text).toBe(errorXml('AUTHENTICATE_01', ACCESS_RESTRICTED));
      expect(usage.calls.length).toBe(before);
    });

    it('when the credential is garbled, then 401 without a call to the usage API, with WWW-Authenticate for Bearer', async () => {
      const before = usage.calls.length;
      const response = await request(whois)
        .get(PATH)
        .query({ domainName: 'example.com' })
        .set('Authorization', 'Bearer not-a-token')
        .expect(401);
      expect(response.body).toEqual(errorJson('AUTHENTICATE_01', ACCESS_RESTRICTED));
      expect(response.headers['www-authenticate']).toBe(
        'Bearer realm="product-1", error="invalid_token", error_description="invalid_credential"',
      );
      expect(usage.calls.length).toBe(before);
    });

    it('when the key is well-formed but unknown, then 401 from the usage API', async () => {
      const response = await request(whois)
        .post(PATH)
        .send({ domainName: 'example.com', apiKey: generateApiKey(), outputFormat: 'XML' })
        .expect(401);
      expect(response.text).toBe(errorXml('AUTHENTICATE_01', ACCESS_RESTRICTED));
    });

    it('when the pool is exhausted, then 403 AUTHENTICATE_02 and the pool stays at 0', async () => {
      const account = anAccount(1);
      await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(200);
      const json = await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(403);
      expect(json.body).toEqual(errorJson('AUTHENTICATE_02', ACCESS_RESTRICTED));
      const xml = await request(whois)
        .get(PATH)
        .query({ apiKey: account.apiKey, domainName: 'example.com', outputFormat: 'XML' })
        .expect(403);
      expect(xml.text).toBe(errorXml('AUTHENTICATE_02', ACCESS_RESTRICTED));
      expect(usage.credits(account.accountId, 1)).toBe(0);
    });

    it('when domainName is missing, then 422 VALIDATION_01 in JSON and XML and nothing is debited', async () => {
      const account = anAccount(5);
      const json = await request(whois).get(PATH).query({ apiKey: account.apiKey }).expect(422);
      expect(json.body).toEqual(errorJson('VALIDATION_01', 'The domain name field is required.'));
      const xml = await request(whois).post(PATH).set('Authorization', `Bearer ${account.token}`).send({ outputFormat: 'XML' }).expect(422);
      expect(xml.text).toBe(errorXml('VALIDATION_01', 'The domain name field is required.'));
      expect(usage.credits(account.accountId, 1)).toBe(5);
    });

    it.each([['not a domain'], ['-bad-.com'], ['localhost'], ['a@b.com'], ['x'.repeat(64) + '.com']])(
      'when domainName is %p, then 422 invalid domain name',
      async (domainName) => {
        const account = anAccount(5);
        const response = await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName }).expect(422);
        expect(response.body).toEqual(errorJson('VALIDATION_01', 'The selected domain name is invalid.'));
        expect(usage.credits(account.accountId, 1)).toBe(5);
      },
    );

    it('when domainName is repeated or nested, then 422 invalid, never a 5xx', async () => {
      const account = anAccount(5);
      await request(whois).get(`${PATH}?domainName=a.com&domainName=b.com&apiKey=${account.apiKey}`).expect(422);
      const nested = await request(whois)
        .post(PATH)
        .send({ apiKey: account.apiKey, domainName: { name: 'a.com' } })
        .expect(422);
      expect(nested.body).toEqual(errorJson('VALIDATION_01', 'The selected domain name is invalid.'));
    });

    it('when outputFormat is not JSON or XML, then 422 in JSON', async () => {
      const account = anAccount(5);
      const response = await request(whois)
        .get(PATH)
        .query({ apiKey: account.apiKey, domainName: 'example.com', outputFormat: 'yaml' })
        .expect(422);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual(errorJson('VALIDATION_01', 'The selected output format is invalid.'));
    });

    it('when the JSON body is malformed, then 400 REQUEST_01', async () => {
      const response = await request(whois).post(PATH).set('Content-Type', 'application/json').send('{"domainName": ').expect(400);
      expect(response.body).toEqual(errorJson('REQUEST_01', 'Malformed request body.'));
    });

    it('when the body is over 16 KiB, then 413 REQUEST_02', async () => {
      const response = await request(whois)
        .post(PATH)
        .send({ domainName: 'example.com', padding: 'x'.repeat(17 * 1024) })
        .expect(413);
      expect(response.body).toEqual(errorJson('REQUEST_02', 'Request body too large.'));
    });

    it('when the usage API keeps answering 503, then 503 UNAVAILABLE_01 with Retry-After', async () => {
      const account = anAccount(5);
      usage.failNext(3, 503);
      const response = await request(whois).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(503);
      expect(response.body).toEqual(errorJson('UNAVAILABLE_01', 'Service temporarily unavailable. Try your call again later.'));
      expect(response.headers['retry-after']).toBe('2');
    });

    it('when the usage API is unreachable, then 503 UNAVAILABLE_01', async () => {
      const offline = productApp(usage, 1, { userUrl: 'http://127.0.0.1:9', retries: 1 });
      const account = anAccount(5);
      const response = await request(offline)
        .get(PATH)
        .query({ apiKey: account.apiKey, domainName: 'example.com', outputFormat: 'XML' })
        .expect(503);
      expect(response.text).toBe(errorXml('UNAVAILABLE_01', 'Service temporarily unavailable. Try your call again later.'));
      expect(response.headers['retry-after']).toBe('1');
    });

    // CONTRACT §1: a fault answers 503 within 5 s. timeoutMs bounds the whole debit, its retries
    // included; were it per attempt, three attempts and their pauses would hold this call 3.3 s.
    it('when the usage API takes the debit and never answers, then 503 UNAVAILABLE_01 once timeoutMs has passed, not after every retry', async () => {
      const waiting = productApp(usage, 1, { timeoutMs: 1000, retries: 2 });
      const account = anAccount(5);
      const held = usage.holdBatches();
      try {
        const sentAt = Date.now();
        const response = await request(waiting).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(503);
        const waited = Date.now() - sentAt;
        expect(response.body).toEqual(errorJson('UNAVAILABLE_01', 'Service temporarily unavailable. Try your call again later.'));
        expect(response.headers['retry-after']).toBe('1');
        expect(waited).toBeGreaterThanOrEqual(1000);
        expect(waited).toBeLessThan(2500);
      } finally {
        held.release();
      }
    });

    it('when the service JWT secret is wrong, then 500 INTERNAL_01 (the product is misconfigured, not the customer) and nothing is debited', async () => {
      const misconfigured = productApp(usage, 1, { serviceJwtSecret: 'another-secret-another-secret-0123456789' });
      const account = anAccount(5);
      const response = await request(misconfigured).get(PATH).query({ apiKey: account.apiKey, domainName: 'example.com' }).expect(500);
      expect(response.body).toEqual(errorJson('INTERNAL_01', 'Internal server error.'));
      expect(usage.credits(account.accountId, 1)).toBe(5);
    });
  });
});
