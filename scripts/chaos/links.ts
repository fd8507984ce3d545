/**
 * The nemesis's network faults, inside the chaos run's own namespace (netns.ts):
 * - a partition: iptables DROP rules, in a chain of their own, on every TCP packet to or from a
 *   part's ports, so that the part is cut off both ways from everything (other parts, clients,
 *   its peers): connections in flight go silent, new ones get no answer (no RST, no refusal), as
 *   across a real partition; healing flushes the chain and TCP retransmits carry on;
 * - a delay: a TCP proxy in this process on the link from the services to pgbouncer (the kernel
 *   here has no netem for `tc`), which holds each chunk for a given time in either direction.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { once } from 'node:events';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CHAIN = 'chaos-nemesis';

const iptables = async (...args: string[]): Promise<void> => {
  await run('iptables', ['-w', ...args], { timeout: 10_000 });
};

/** Creates the nemesis's chain (empty: nothing cut) and sends every incoming packet through it. */
export async function prepareLinks(): Promise<void> {
  await iptables('-N', CHAIN);
  await iptables('-I', 'INPUT', '-j', CHAIN);
}

/** Cuts `ports` off: on the loopback every packet passes INPUT once, so both directions drop there. */
export async function cut(ports: readonly number[]): Promise<void> {
  for (const port of ports)
    for (const side of ['--dport', '--sport']) await iptables('-A', CHAIN, '-p', 'tcp', side, String(port), '-j', 'DROP');
}

export async function healLinks(): Promise<void> {
  await iptables('-F', CHAIN);
}

/** The rules in force (for the nemesis's log and the tests): one line per rule. */
export async function rules(): Promise<string[]> {
  const { stdout } = await run('iptables', ['-w', '-S', CHAIN], { timeout: 10_000 });
  return stdout.split('\n').filter((line) => line.startsWith('-A'));
}

export interface DelayProxy {
  port: number;
  /** Holds every chunk this long (ms) in either direction from now on; 0: forwards at once. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

/** One direction of a link: chunks leave in order, each no earlier than its arrival plus the delay. */
function delayedPipe(from: net.Socket, to: net.Socket, delay: () => number): void {
  let last = Promise.resolve();
  from.on('data', (chunk: Buffer) => {
    const due = Date.now() + delay();
    last = last.then(async () => {
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!to.destroyed) to.write(chunk);
    });
  });
  from.on('end', () => void last.then(() => to.end()));
}

export async function startDelayProxy(listenPort: number, targetPort: number): Promise<DelayProxy> {
  let delayMs = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket
        .on('error', () => undefined)
        .on('close', () => {
          sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
    }
    delayedPipe(client, upstream, () => delayMs);
    delayedPipe(upstream, client, () => delayMs);
  });
  server.listen(listenPort, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: listenPort,
    setDelay: (ms) => {
      delayMs = ms;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
