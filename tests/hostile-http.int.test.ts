/**
 * Hostile requests, generated (fast-check), against every HTTP service on the real servers:
 * whatever the method, path, query string, body, content type and credential, no answer is a
 * 5xx. A database of its own: generated admin calls top up and create accounts.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import request from 'supertest';
import { Health } from '@platform/runtime';
import { createHttpApp, mountedPaths } from '@platform/kernel';
import { createProductGateway } from '@platform/product-gateway';
import { signServiceJwt } from '@platform/credentials';
import { captureLogs, uniqueId } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { DEFAULT_TAXONOMY_FILE } from '@platform/categorization';
import { DECLARED_ROUTES } from './contract/support/declared-endpoints';

const ADMIN_TOKEN = `hostile-admin-token-${uniqueId()}-0123456789`;
const SERVICE_JWT_SECRET = `hostile-service-jwt-secret-${uniqueId()}-0123456789`;

type PublicService = 'auth' | 'user' | 'categorization';
// A value for each path parameter, as the services' ids are written.
const PATH_VALUES: Record<PublicService, string> = { auth: '1', user: '1', categorization: 'CUS-1' };
/**
 * Every path the services declare (tests/contract/support/declared-endpoints.ts reads the
 * declarations), with its parameters filled in, and the operations endpoints, which no route
 * declares: a route declared later is fuzzed without an edit here.
 */
const endpointsOf = (service: PublicService): readonly string[] => [
  ...new Set(
    DECLARED_ROUTES[service].flatMap((route) => mountedPaths(route).map((path) => path.replace(/\{\w+\}/g, PATH_VALUES[service]))),
  ),
  '/metrics',
  '/health/ready',
];
const ENDPOINTS: Record<PublicService, readonly string[]> = {
  auth: endpointsOf('auth'),
  user: endpointsOf('user'),
  categorization: endpointsOf('categorization'),
};

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', 'XML', 'json', 'at_x', '1', '-1', '1e309', 'null'),
);
const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('outputFormat', 'apiKey', 'productId', 'currentApiKey', 'order', 'days', 'a[b]', 'apiKey[]', '__proto__'),
        fc.string({ maxLength: 8 }),
      ),
      text,
    ),
    { maxLength: 5 },
  )
  .map((pairs) =>
    pairs.map(([key, value]) => `${encodeURIComponent(key)}=${Math.random() < 0.1 ? '%E0%A4%A' : encodeURIComponent(value)}`).join('&'),
  );
const body = fc.oneof(
  fc.record({ type: fc.constant('application/json'), data: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) }),
  fc.record({ type: fc.constant('application/json'), data: text }),
  fc.record({ type: fc.constant('application/x-www-form-urlencoded'), data: queryString }),
  fc.record({ type: fc.constantFrom('text/xml', 'application/octet-stream', 'application/json; charset=utf-16'), data: text }),
  fc.constant(undefined),
);
// A header value as it can travel (visible ASCII, no leading or trailing blank); anything else a client cannot send.
const headerText = text.map((value) => value.replace(/[^\x20-\x7e]/g, '').trim());
const credential = fc.oneof(
  fc.constant(undefined),
  fc.constant(`Bearer ${ADMIN_TOKEN}`),
  fc.constant('service-jwt'),
  headerText.map((value) => `Bearer ${value}`.trim()),
  text.map((value) => `Basic ${Buffer.from(value).toString('base64')}`),
  text.map((value) => `Bearer ${Buffer.from(value).toString('base64')}`),
  headerText,
);

describe('hostile HTTP input: no answer is a 5xx', () => {
  let platform: Platform;
  const urls: Record<PublicService, string> = { auth: '', user: '', categorization: '' };
  const more = { notifier: '', gateway: '' };
  const logs = captureLogs('hostile');
  let gatewayServer: Server;

  beforeAll(async () => {
    const logger = logs.logger;
    platform = await startPlatform({
      name: 'hostile',
      logger,
      bus: 'in-process',
      env: {
        ADMIN_TOKEN,
        SERVICE_JWT_SECRET,
        IAB_TAXONOMY_FILE: process.env.IAB_TAXONOMY_FILE ?? DEFAULT_TAXONOMY_FILE,
        // Every generated request comes from one address: the failure limits (tested in their own
        // files) would answer 429 before the answers these tests look at.
        AUTH_FAILURES_PER_IP: '1000000',
      },
    });
    Object.assign(urls, { auth: platform.url('auth'), user: platform.url('user'), categorization: platform.url('categorization') });
    more.notifier = platform.url('notifier');
    // A product of the lookup family, as a product team mounts the gateway (ErrorMessage envelope).
    const product = createHttpApp({ service: 'product-1', logger, health: new Health({}), openapi: {}, envelope: 'errorMessage' });
    const gateway = createProductGateway({ userUrl: urls.user, serviceJwtSecret: SERVICE_JWT_SECRET, productId: 1 });
    product.app.use(gateway.routes('/whoisserver/WhoisService', (accepted) => ({ domainName: accepted.domainName })));
    gatewayServer = product.finish().listen(0, '127.0.0.1');
    await once(gatewayServer, 'listening');
    more.gateway = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    gatewayServer?.closeAllConnections();
    await new Promise((resolve) => gatewayServer?.close(resolve) ?? resolve(undefined));
    await platform?.stop();
  });

  it('when generated requests hit every endpoint of auth, user and categorization, then every answer is below 500', async () => {
    const endpoint = fc
      .constantFrom(...(Object.entries(ENDPOINTS) as Array<[PublicService, readonly string[]]>))
      .chain(([service, paths]) => fc.constantFrom(...paths).map((path) => ({ service, path })));
    await fc.assert(
      fc.asyncProperty(
        endpoint,
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
        queryString,
        body,
        credential,
        async (target, method, query, payload, authorization) => {
          const url = `${urls[target.service]}${target.path}${query === '' ? '' : `?${query}`}`;
          const headers: Record<string, string> = {};
          if (authorization === 'service-jwt')
            headers.authorization = `Bearer ${signServiceJwt({ issuer: 'hostile', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 })}`;
          else if (authorization !== undefined) headers.authorization = authorization;
          if (payload !== undefined) headers['content-type'] = payload.type;
          const response = await fetch(url, {
            method,
            headers,
            ...(payload !== undefined && method !== 'GET' ? { body: payload.data } : {}),
          });
          await response.arrayBuffer();
          expect(response.status).toBeLessThan(500);
        },
      ),
      { numRuns: 1000 },
    );
  }, 120_000);

  it('when a body is larger than 16 KiB or its JSON is broken, then 413 or 400 (never 5xx)', async () => {
    const big = await request(urls.user)
      .post('/user-service/account-balance')
      .set('content-type', 'application/json')
      .send(`{"apiKey":"${'x'.repeat(20_000)}"}`);
    expect(big.status).toBe(413);
    const broken = await request(urls.auth).post('/oauth/token').set('content-type', 'application/json').send('{"grantType":');
    expect(broken.status).toBe(400);
  });

  describe('a body whose Content-Encoding does not decode', () => {
    const corrupt = {
      gzip: gzipSync('{"apiKey":"x"}').subarray(0, 12),
      deflate: Buffer.from('not deflate'),
      br: Buffer.from('this is not brotli at all, just text'),
    } as const;
    const MALFORMED = { code: 400, messages: 'Malformed request body.' };
    const targets = (): Array<[string, string, unknown]> => [
      ['auth', `${urls.auth}/oauth/token`, MALFORMED],
      ['auth', `${urls.auth}/oauth/revoke`, MALFORMED],
      ['user', `${urls.user}/user-service/account-balance`, MALFORMED],
      ['user', `${urls.user}/internal/v1/usage`, MALFORMED],
      ['user', `${urls.user}/admin/v1/accounts`, MALFORMED],
      ['categorization', `${urls.categorization}/api/v2/categories`, MALFORMED],
      ['notifier', `${more.notifier}/health/live`, MALFORMED],
      [
        'gateway',
        `${more.gateway}/whoisserver/WhoisService`,
        { ErrorMessage: { errorCode: 'REQUEST_01', msg: 'Malformed request body.' } },
      ],
    ];

    it.each(
      (['gzip', 'deflate', 'br'] as const).flatMap((encoding) =>
        ['application/json', 'application/x-www-form-urlencoded'].map((type) => [encoding, type] as const),
      ),
    )(
      'when a corrupt %s body (%s) reaches every service and the product gateway, then 400 Malformed request body., logged below error',
      async (encoding, type) => {
        const before = logs.lines().length;
        for (const [service, url, expected] of targets()) {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': type, 'content-encoding': encoding },
            body: corrupt[encoding],
          });
          expect({ service, status: response.status, body: await response.json() }).toEqual({ service, status: 400, body: expected });
        }
        const lines = logs.lines().slice(before);
        expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
        expect(lines.filter((line) => line.message === 'request' && line.status === '400')).toHaveLength(targets().length);
      },
    );

    it.each([
      ['gzip', gzipSync('grantType=access_token')],
      ['deflate', deflateSync('grantType=access_token')],
      ['br', brotliCompressSync('grantType=access_token')],
    ])('when a %s body decodes, then it is read (401 for the missing credential, not 400)', async (encoding, data) => {
      const response = await fetch(`${urls.auth}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': encoding },
        body: data,
      });
      expect(response.status).toBe(401);
    });
  });
});
