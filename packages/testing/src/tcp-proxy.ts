import net from 'node:net';
import { once } from 'node:events';

/**
 * A loopback TCP proxy in front of a real server. `cut()` drops every connection and refuses
 * new ones, as if the server had stopped, without disturbing other tests that share the server.
 * `blackHole()` is a partition instead: every connection stays open and nothing goes through,
 * new ones are accepted and never answered; no error reaches either side.
 */
export interface TcpProxy {
  port: number;
  url(template: string): string;
  /** Connections accepted so far (refused ones not counted). */
  accepted(): number;
  cut(): void;
  blackHole(): void;
  /** Forwards again; connections held by a black hole are dropped (the partition healed too late for them). */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let open = true;
  let swallowing = false;
  let accepted = 0;
  const server = net.createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    accepted += 1;
    if (swallowing) {
      client.pause();
      sockets.add(client);
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    url: (template) => template.replace(/:(\d+)(\/|$)/, `:${address.port}$2`),
    accepted: () => accepted,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    blackHole() {
      swallowing = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    restore() {
      if (swallowing) {
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      }
      swallowing = false;
      open = true;
    },
    async close() {
      open = false;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A loopback port that was free a moment ago: for a server that must know its own URL before it
 * listens (AUTH_URL), or for a port nobody listens on (connections refused). With `range`, one in
 * that range (for processes whose ready check must not reach another's server on a reused port).
 */
export async function freePort(range?: { from: number; to: number }): Promise<number> {
  if (range) {
    // Round robin through the range, so that a port a process just left is not handed out again at once.
    for (let tries = 0; tries <= range.to - range.from; tries += 1) {
      const port = range.from + (nextInRange++ % (range.to - range.from + 1));
      if (await isFree(port)) return port;
    }
    throw new Error(`no free port in ${range.from}-${range.to}`);
  }
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let nextInRange = 0;

/** Whether a server can listen on the loopback `port` now (it listens, then closes). */
export async function isFree(port: number): Promise<boolean> {
  const server = net.createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
  } catch {
    return false;
  }
  await new Promise((resolve) => server.close(resolve));
  return true;
}
