/** A kernel app listens on the kernel's server: requests and responses are made with the app's prototypes. */
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from './kernel-app';

async function listening(): Promise<{ server: Server; url: string; made: Array<{ req: boolean; res: boolean }> }> {
  const { app } = buildApp();
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const made: Array<{ req: boolean; res: boolean }> = [];
  // Runs before express sees the request: what node's server made.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    made.push({ req: Object.getPrototypeOf(req) === app.request, res: Object.getPrototypeOf(res) === app.response });
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, made };
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
});
