/**
 * The client never puts a query string or a credential into an error: not in the message, the
 * stack, the cause chain or what the CLI prints. Against real sockets: a port nothing listens
 * on (refused connection) and a server that answers 5xx.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { ApiError } from '../src/api-error.js';
import { AccountAccessClient } from '../src/client.js';
import { runClientCli } from '../src/cli.js';

const API_KEY = 'at_SecretKeyThatMustNotLeak12345';
const TOKEN = 'tk_secret-token-that-must-not-leak-0123456789abcdef';

/** Every method of the client that goes over the network, as one call each. */
const METHODS: Record<string, (client: AccountAccessClient) => Promise<unknown>> = {
  accessToken: (client) => client.accessToken(),
  balance: (client) => client.balance({ productId: 1 }),
  usageHistory: (client) => client.usageHistory({ days: 7, productId: 1 }),
  rotateKey: (client) => client.rotateKey(),
  categories: (client) => client.categories({ order: 'ABC' }),
  notificationSettings: (client) => client.notificationSettings(),
  updateNotificationSettings: (client) => client.updateNotificationSettings({ lowBalanceAlert: { threshold: 5 } }),
};

/** Everything an error tracker or a log line could take from the error. */
function everythingIn(error: unknown): string {
  return [String(error), (error as Error).stack ?? '', inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error)].join('\n');
}

function expectNothingCarried(error: unknown): void {
  expect(error).toBeInstanceOf(ApiError);
  const text = everythingIn(error);
  for (const secret of [API_KEY, TOKEN, btoa(API_KEY), 'currentApiKey', 'productId=', 'days=', 'order=']) {
    expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
  }
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A URL whose port was free a moment ago and is now closed: connecting to it is refused. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return url;
}

describe('errors of the client carry no query string and no credential', () => {
  let healthyAuth: Server;
  let failing: Server;
  const urls = { refused: '', auth: '', failing: '' };

  beforeAll(async () => {
    urls.refused = await refusedUrl();
    // Grants a token, so that every other method reaches its own request.
    healthyAuth = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ accessToken: TOKEN, expiresIn: 3600 }));
    });
    urls.auth = await listen(healthyAuth);
    // Answers every request with a 5xx that quotes the request back, as a broken proxy might.
    failing = createServer((req, res) => {
      res.statusCode = req.url?.includes('categories') ? 502 : 500;
      res.statusMessage = `failed ${req.url ?? ''}`.replace(/[^\x20-\x7e]/g, '');
      res.end(`<html>${req.url ?? ''}</html>`);
    });
    urls.failing = await listen(failing);
  });

  afterAll(async () => {
    for (const server of [healthyAuth, failing]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const client = (auth: string, others: string): AccountAccessClient =>
    new AccountAccessClient({ apiKey: API_KEY, authUrl: auth, userUrl: others, categorizationUrl: others });

  it.each(Object.keys(METHODS))(
    'when the connection is refused, then %s fails with an error that names no query string or secret',
    async (name) => {
      const call = METHODS[name] as (typeof METHODS)[string];
      const failure = await call(client(urls.refused, urls.refused)).catch((error: unknown) => error);
      expectNothingCarried(failure);
      expect(failure).toMatchObject({ status: 0, code: 'network_error', networkCode: 'ECONNREFUSED' });
      expect((failure as ApiError).message).toMatch(
        /^0 (GET|POST) http:\/\/127\.0\.0\.1:[0-9]+\/[^?\s]* failed: fetch failed: connect ECONNREFUSED/,
      );
    },
  );

  it.each(Object.keys(METHODS).filter((name) => name !== 'accessToken' && name !== 'rotateKey'))(
    'when the token is granted but the service is refused, then %s names no query string or secret',
    async (name) => {
      const call = METHODS[name] as (typeof METHODS)[string];
      expectNothingCarried(await call(client(urls.auth, urls.refused)).catch((error: unknown) => error));
    },
  );

  it.each(Object.keys(METHODS))(
    'when the platform answers 5xx, then %s fails with an error that names no query string or secret',
    async (name) => {
      const call = METHODS[name] as (typeof METHODS)[string];
      const auth = name === 'accessToken' ? urls.failing : urls.auth;
      const failure = await call(client(auth, urls.failing)).catch((error: unknown) => error);
      expectNothingCarried(failure);
      expect((failure as ApiError).status).toBeGreaterThanOrEqual(500);
    },
  );

  it('when a given fetch throws an error that quotes the URL, then the error keeps neither the URL’s query nor the key', async () => {
    const quoting = new AccountAccessClient({
      apiKey: API_KEY,
      authUrl: urls.auth,
      userUrl: 'http://user.test',
      categorizationUrl: 'http://categorization.test',
      fetch: (input) => Promise.reject(new Error(`could not reach ${input}`, { cause: new Error(`socket for ${input} closed`) })),
    });
    const failure = await quoting.rotateKey().catch((error: unknown) => error);
    expectNothingCarried(failure);
    expect((failure as ApiError).message).toContain('GET http://user.test/user-service/api-key/generate failed');
  });

  it.each([
    ['rotate', 'refused'],
    ['rotate', 'failing'],
    ['balance', 'failing'],
    ['usage-history', 'refused'],
  ] as const)('when `pnpm client %s` fails (%s), then stderr names no query string or key', async (command, target) => {
    let stderr = '';
    let stdout = '';
    const env = { API_KEY, AUTH_URL: urls.auth, USER_URL: urls[target], CATEGORIZATION_URL: urls[target] };
    const code = await runClientCli([command, '--product-id', '1'].slice(0, command === 'rotate' ? 1 : 3), env, {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
    });
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    for (const secret of [API_KEY, TOKEN, 'currentApiKey', 'productId='])
      expect({ secret, found: stderr.includes(secret) }).toEqual({ secret, found: false });
  });
});
