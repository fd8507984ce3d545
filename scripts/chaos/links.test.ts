import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import { freePort } from '@platform/testing';
import { startDelayProxy, type DelayProxy } from './links';

/** One round trip through the proxy to an echo server: its time in ms. */
async function roundTrip(port: number): Promise<number> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const started = Date.now();
  socket.write('ping');
  const [echo] = (await once(socket, 'data')) as [Buffer];
  socket.destroy();
  expect(echo.toString()).toBe('ping');
  return Date.now() - started;
}

describe('the nemesis links', () => {
  let echo: net.Server;
  let proxy: DelayProxy;
  beforeAll(async () => {
    echo = net.createServer((socket) => socket.on('error', () => undefined).pipe(socket)).listen(0, '127.0.0.1');
    await once(echo, 'listening');
    proxy = await startDelayProxy(await freePort(), (echo.address() as net.AddressInfo).port);
  });
  afterAll(async () => {
    await proxy.close();
    echo.close();
  });

  it('a delay holds each chunk for its time in either direction, and 0 forwards at once', async () => {
    proxy.setDelay(150);
    expect(await roundTrip(proxy.port)).toBeGreaterThanOrEqual(300);
    proxy.setDelay(0);
    expect(await roundTrip(proxy.port)).toBeLessThan(100);
  });

  it('a partition (in a namespace of the test) silences a connection both ways and refuses nothing; the heal restores it', () => {
    const namespace = `chaos-links-test-${process.pid}`;
    execFileSync('ip', ['netns', 'add', namespace]);
    try {
      execFileSync('ip', ['-n', namespace, 'link', 'set', 'lo', 'up']);
      const probe = path.join(__dirname, 'links-probe.ts');
      const output = execFileSync(
        'ip',
        ['netns', 'exec', namespace, process.execPath, '--conditions=development', '--import', 'tsx', probe],
        { encoding: 'utf8', timeout: 20_000 },
      );
      const seen = JSON.parse(output) as Record<string, number | string>;
      expect(seen).toEqual({
        before: expect.any(Number),
        ruleCount: 2,
        during: 0,
        connectDuring: 'silent',
        after: expect.any(Number),
        connectAfter: 'connected',
        rulesAfter: 0,
      });
      expect(seen.before).toBeGreaterThan(0);
      // What the server sent during the cut arrives after the heal (TCP retransmits), then more.
      expect(seen.after).toBeGreaterThan(0);
    } finally {
      execFileSync('ip', ['netns', 'delete', namespace]);
    }
  });
});
