import { Redis } from 'ioredis';

/** One Redis Cluster node's commands, over a short-lived connection that never retries. */

const HOST = '127.0.0.1';

/**
 * The commands in order on one connection to the node on `port`, and the last one's answer.
 * `READONLY` first lets a replica answer reads of its own slots instead of redirecting them.
 */
export async function askRaw(port: number, ...commands: string[][]): Promise<unknown> {
  const client = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    let answer: unknown;
    for (const [name, ...args] of commands) answer = await client.call(name as string, ...args);
    return answer;
  } finally {
    client.disconnect();
  }
}

/** One command on the node on `port`, its answer as text. */
export const ask = async (port: number, ...args: string[]): Promise<string> => String(await askRaw(port, args));

/** Polls `probe` every 100 ms until it is true (a failed probe counts as false). */
export async function until(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
