import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';

/**
 * A redis-server of a test's own, on a free port with a temporary folder, for tests that must
 * save, stop and restart Redis (never the shared server on 6379, which other tests use).
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** SAVE, then a copy of the RDB file that restoreSnapshot() can bring back. */
  snapshot(): Promise<void>;
  /** SHUTDOWN NOSAVE: the server goes away and takes every write since the snapshot with it. */
  stopWithoutSaving(): Promise<void>;
  /** Starts the server again on the same port from the snapshot (as a restore from an older RDB). */
  restoreSnapshot(): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPing(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'redis-test-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const dump = path.join(dir, 'dump.rdb');
  const saved = path.join(dir, 'snapshot.rdb');
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--dbfilename',
      'dump.rdb',
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPing(url);
  };
  const command = async (...args: string[]): Promise<unknown> => {
    const client = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      return await client.call(args[0] as string, ...args.slice(1));
    } finally {
      client.disconnect();
    }
  };

  await start();
  return {
    url,
    port,
    async snapshot() {
      await command('SAVE');
      copyFileSync(dump, saved);
    },
    async stopWithoutSaving() {
      const running = child;
      // The server closes the connection instead of answering.
      await command('SHUTDOWN', 'NOSAVE').catch(() => undefined);
      if (running) await exited(running);
    },
    async restoreSnapshot() {
      copyFileSync(saved, dump);
      await start();
    },
    async close() {
      const running = child;
      if (running && running.exitCode === null) {
        running.kill('SIGKILL');
        await exited(running);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
