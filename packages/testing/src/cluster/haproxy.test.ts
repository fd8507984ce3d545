/**
 * The cluster's HAProxy front (the real haproxy binary, its configuration from haproxy.ts) before
 * stand-in replicas: one that holds a request without answering (a SIGSTOPped replica), one that
 * dies mid-request, one that is gone. Every answer is a 2xx or the contract's 503 within 5 s
 * (CONTRACT §1), and a request that reached a replica is never sent to another.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../wait';
import { haproxyDefaults, serviceSection, writeUnavailableFile } from './haproxy';
import { startDetached } from './processes';

type Behaviour = 'hold' | 'die' | 'answer';

interface Replica {
  port: number;
  /** Requests (not health checks) that reached it. */
  seen: string[];
  server: Server;
}

async function replica(behaviour: Behaviour): Promise<Replica> {
  const seen: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/health/live') return void response.end('ok');
    seen.push(`${request.method} ${request.url}`);
    if (behaviour === 'die') request.socket.destroy();
    if (behaviour === 'answer') response.end('{"ok":true}');
    // 'hold': never answers, as a stopped process whose kernel still accepts connections.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen, server };
}

/** A port nothing listens on (taken and released). */
async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const CONTRACT_503 = {
  status: 503,
  contentType: 'application/json; charset=utf-8',
  retryAfter: '1',
  body: { code: 503, messages: 'Service temporarily unavailable. Try your call again later.' },
};

describe('the cluster HAProxy front', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'haproxy-front-'));
  const servers: Server[] = [];
  let haproxy: number | undefined;

  afterEach(async () => {
    if (haproxy !== undefined) process.kill(haproxy, 'SIGKILL');
    haproxy = undefined;
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** HAProxy's front over replicas in this order (server 1 first in the round robin). */
  const front = async (replicaPorts: number[]): Promise<string> => {
    const port = await freePort();
    const config = path.join(dir, `haproxy-${port}.cfg`);
    writeFileSync(config, [...haproxyDefaults(writeUnavailableFile(dir)), ...serviceSection('user', port, replicaPorts), ''].join('\n'));
    haproxy = startDetached({ name: `haproxy-${port}`, command: 'haproxy', args: ['-db', '-f', config], logDir: dir });
    const url = `http://127.0.0.1:${port}`;
    await eventually(() =>
      fetch(`${url}/health/live`).then(
        (reply) => (reply.status === 200 ? true : undefined),
        () => undefined,
      ),
    );
    return url;
  };
  const use = async (behaviour: Behaviour): Promise<Replica> => {
    const started = await replica(behaviour);
    servers.push(started.server);
    return started;
  };
  const call = async (url: string, method = 'POST'): Promise<{ ms: number; answer: typeof CONTRACT_503 }> => {
    const started = Date.now();
    const reply = await fetch(url, { method });
    const answer = {
      status: reply.status,
      contentType: reply.headers.get('content-type') ?? '',
      retryAfter: reply.headers.get('retry-after') ?? '',
      body: (await reply.json()) as typeof CONTRACT_503.body,
    };
    return { ms: Date.now() - started, answer };
  };

  test('a replica that holds the request: the contract 503 within 5 s, never sent to the other replica', async () => {
    const [held, other] = [await use('hold'), await use('answer')];
    const url = await front([held.port, other.port]);
    // The health check above went to server 1; the round robin sends this one to server 2, the next to 1.
    await fetch(`${url}/warm`);
    const { ms, answer } = await call(`${url}/user-service/api-key/generate`, 'GET');
    expect(answer).toEqual(CONTRACT_503);
    expect(ms).toBeLessThan(5000);
    expect({ held: held.seen, other: other.seen }).toEqual({ held: ['GET /user-service/api-key/generate'], other: ['GET /warm'] });
  });

  test('a replica that dies mid-request: the contract 503, the request not replayed on the other replica', async () => {
    const [dying, other] = [await use('die'), await use('answer')];
    const url = await front([dying.port, other.port]);
    await fetch(`${url}/warm`);
    const { answer } = await call(`${url}/admin/rotate`);
    expect(answer).toEqual(CONTRACT_503);
    expect({ dying: dying.seen, other: other.seen }).toEqual({ dying: ['POST /admin/rotate'], other: ['GET /warm'] });
  });

  test('a replica that is gone (connection refused): the request goes to the other replica', async () => {
    const other = await use('answer');
    const url = await front([await freePort(), other.port]);
    for (let request = 0; request < 4; request += 1) expect((await fetch(`${url}/read`)).status).toBe(200);
    expect(other.seen.filter((line) => line === 'GET /read')).toHaveLength(4);
  });
});
