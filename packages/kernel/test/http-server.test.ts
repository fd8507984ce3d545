/**
 * A kernel app listens on the kernel's server: requests and responses are made with the app's
 * prototypes, and the kernel learns of finished responses from node's server, not from a
 * listener on each response.
 */
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInThisContext } from 'node:vm';
import { buildApp, metricLines } from './kernel-app';

interface Listening {
  server: Server;
  url: string;
  made: Array<{ req: boolean; res: boolean }>;
  responses: ServerResponse[];
  logs: ReturnType<typeof buildApp>['logs'];
}

async function listening(): Promise<Listening> {
  const { app, logs } = buildApp();
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const made: Array<{ req: boolean; res: boolean }> = [];
  const responses: ServerResponse[] = [];
  // Runs before express sees the request: what node's server made.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    made.push({ req: Object.getPrototypeOf(req) === app.request, res: Object.getPrototypeOf(res) === app.response });
    responses.push(res);
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, made, responses, logs };
}

describe('the kernel server', () => {
  let running: Awaited<ReturnType<typeof listening>>;
  beforeEach(async () => {
    running = await listening();
  });
  afterEach(async () => {
    running.server.closeAllConnections();
    await new Promise((resolve) => running.server.close(resolve));
  });

  it('when a request arrives, then node made it and its response with the app prototypes (express changes neither)', async () => {
    const response = await fetch(`${running.url}/echo?a=1`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { a: unknown }).a).toEqual({ kind: 'value', value: '1' });
    expect(running.made).toEqual([{ req: true, res: true }]);
  });

  it('when bodies arrive on one keep-alive connection, then each is read and answered', async () => {
    for (const a of ['x', 'y']) {
      const response = await fetch(`${running.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ a }),
      });
      expect(((await response.json()) as { a: unknown }).a).toEqual({ kind: 'value', value: a });
    }
    expect(running.made).toEqual([
      { req: true, res: true },
      { req: true, res: true },
    ]);
  });

  // A 'finish' listener of the kernel's own beside node's made each response's listeners an
  // array that V8 came to allocate in the old generation, holding every response through the
  // young-generation collections (finished-responses.ts).
  it("when a response finishes, then node's own 'finish' listener is its only one, and the request line and metrics are still recorded", async () => {
    const response = await fetch(`${running.url}/echo?a=1`, { headers: { 'x-request-id': 'finish-1' } });
    expect(response.status).toBe(200);
    await response.text();
    expect(running.responses).toHaveLength(1);
    const res = running.responses[0] as ServerResponse;
    // The client has its answer once the last byte is written; node emits 'finish' right after.
    if (!res.writableFinished) await once(res, 'finish');
    expect(res.listenerCount('finish')).toBe(1);
    expect(running.logs()).toContainEqual(
      expect.objectContaining({ message: 'request', requestId: 'finish-1', method: 'GET', route: '/echo', status: '200' }),
    );
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metricLines(metrics, 'http_requests_total', { method: 'GET', route: '/echo', status: '200' })).toEqual([
      expect.stringMatching(/ 1$/),
    ]);
  });

  // Made by functions that called node's constructors, every request and response ended up a
  // dictionary in V8 (slow properties): such a function assigns no property itself, so V8 made
  // no room inside the object, and the keyed stores of node and the router tipped it over.
  it('when requests have been served, then their requests and responses keep fast properties', async () => {
    setFlagsFromString('--allow-natives-syntax');
    const hasFastProperties = runInThisContext('(object) => %HasFastProperties(object)') as (object: object) => boolean;
    // V8 settles an object's layout after its constructor's first few objects.
    for (let request = 0; request < 20; request += 1) {
      const response = await fetch(`${running.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ a: String(request) }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    const res = running.responses.at(-1) as ServerResponse;
    if (!res.writableFinished) await once(res, 'finish');
    expect({ req: hasFastProperties(res.req), res: hasFastProperties(res) }).toEqual({ req: true, res: true });
  });
});
