/**
 * CONTRACT §4.2: a token on a product request, through the credential-and-credits middleware a product
 * of the domain-registration-lookup family mounts (ErrorMessage envelope).
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CoalesceOptions } from '@platform/product-gateway';
import { countStatuses } from '@platform/testing';
import { productApp } from '../support/product-app';
import {
  ACCESS_RESTRICTED,
  FORMATS,
  JSON_TYPE,
  SERVICE_JWT_SECRET,
  XML_TYPE,
  balanceItem,
  metricSample,
  bearer,
  call,
  unknownKey,
  withFormat,
  xmlOf,
  usePlatform,
  type HttpRequest,
} from './support';

const { platform, freshKey, balanceOf } = usePlatform();

describe('§4.2 a product of the domain-registration-lookup family', () => {
  const PATH = '/whoisserver/WhoisService';
  const servers: Server[] = [];
  let product: string;

  /** A product app of the family on its own port, its gateway configured with `coalesce`. */
  async function startProduct(coalesce?: CoalesceOptions): Promise<string> {
    const { app } = productApp({
      userUrl: platform.user,
      serviceJwtSecret: SERVICE_JWT_SECRET,
      productId: 1,
      ...(coalesce ? { coalesce } : {}),
      path: PATH,
      answer: (accepted) => ({ WhoisRecord: { domainName: accepted.domainName } }),
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    product = await startProduct();
  });

  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const lookupPool = async (apiKey: string): Promise<unknown> => (await balanceOf(apiKey, { productId: '1' })).json();

  it.each<[string, (apiKey: string, token: string) => HttpRequest]>([
    ['GET, key in apiKey', (apiKey) => ({ query: { domainName: 'example.com', apiKey } })],
    ['GET, token in apiKey', (_apiKey, token) => ({ query: { domainName: 'example.com', apiKey: token } })],
    ['GET, token as Bearer', (_apiKey, token) => ({ query: { domainName: 'example.com' }, headers: bearer(token) })],
    ['POST JSON, token as Bearer', (_apiKey, token) => ({ json: { domainName: 'example.com' }, headers: bearer(token) })],
    ['POST JSON, token in apiKey', (_apiKey, token) => ({ json: { domainName: 'example.com', apiKey: token } })],
  ])('when called by %s, then 200 and one credit is debited from the product’s pool', async (_how, request) => {
    const apiKey = await freshKey({ 1: 10 });
    const reply = await call(product, PATH, request(apiKey, await platform.token(apiKey)));
    expect(reply.status).toBe(200);
    expect(await lookupPool(apiKey)).toEqual({ data: [balanceItem(1, 9)] });
  });

  it.each(FORMATS)('when the credential is unknown, then 401 in the ErrorMessage envelope (AUTHENTICATE_01), in %s', async (format) => {
    const reply = await call(product, PATH, { query: { domainName: 'example.com', apiKey: unknownKey(), ...withFormat(format) } });
    const inner = { errorCode: 'AUTHENTICATE_01', msg: ACCESS_RESTRICTED };
    expect({ status: reply.status, type: reply.type, text: reply.text }).toEqual({
      status: 401,
      type: format === 'JSON' ? JSON_TYPE : XML_TYPE,
      text: format === 'JSON' ? JSON.stringify({ ErrorMessage: inner }) : xmlOf(inner, 'ErrorMessage'),
    });
  });

  it('when the pool is exhausted, then an ErrorMessage error with the contract’s sentence and nothing is debited', async () => {
    const apiKey = await freshKey({ 1: 0 });
    const reply = await call(product, PATH, { query: { domainName: 'example.com', apiKey } });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ ErrorMessage: { errorCode: expect.any(String), msg: ACCESS_RESTRICTED } });
    expect(await lookupPool(apiKey)).toEqual({ data: [balanceItem(1, 0)] });
  });

  it('when concurrent calls outnumber the pool’s credits, then they go as batches of at most maxItems and exactly the credits are served, each call on its own debit', async () => {
    // A window no test outlasts: a batch goes when it is full, or when no batch of the gateway is
    // in flight (the first call finds none); 30 calls make at least 3, never one per call.
    const coalescing = await startProduct({ windowMs: 600_000, maxItems: 10 });
    const apiKey = await freshKey({ 1: 20 });
    const requests = async (route: string): Promise<number> => {
      const sample = metricSample((await call(platform.user, '/metrics')).text, 'http_requests_total', { method: 'POST', route });
      return Number(sample?.split(' ').at(-1) ?? 0);
    };
    const [singleBefore, batchesBefore] = [await requests('/internal/v1/usage'), await requests('/internal/v1/usage/batch')];
    const replies = await Promise.all(
      Array.from({ length: 30 }, () => call(coalescing, PATH, { query: { domainName: 'example.com', apiKey } })),
    );
    expect(countStatuses(replies, { served: 200, refused: 403 })).toEqual({ served: 20, refused: 10 });
    expect(await lookupPool(apiKey)).toEqual({ data: [balanceItem(1, 0)] });
    const batches = (await requests('/internal/v1/usage/batch')) - batchesBefore;
    expect({ single: await requests('/internal/v1/usage'), batchesAtLeast3: batches >= 3, fewerThanCalls: batches < 30 }).toEqual({
      single: singleBefore,
      batchesAtLeast3: true,
      fewerThanCalls: true,
    });
  });
});
