import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './tcp-proxy';

const run = promisify(execFile);

/** Where the PostgreSQL server binaries are (Debian's layout); PG_BIN overrides. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL server of a test's own, in a temporary folder on a free port, for tests that must
 * stop or restart the server (the shared one on 5432 serves every other test).
 */
export interface PrivatePostgres {
  url: string;
  /** `pg_ctl restart`: `fast` ends sessions cleanly, `immediate` as after a crash (recovery on start). */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  stop(): Promise<void>;
}

/** Runs a server binary as the `postgres` user when this process is root (initdb refuses root). */
async function asPostgres(binary: string, args: string[]): Promise<void> {
  const command = path.join(PG_BIN, binary);
  if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', command, ...args]);
  else await run(command, args);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'aap-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout), Number(group));
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const ctl = (...args: string[]) => asPostgres('pg_ctl', ['-D', data, '-w', '-t', '60', '-l', path.join(dir, 'log'), ...args]);
  await ctl('-o', options, 'start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: (mode) => ctl('-m', mode, '-o', options, 'restart'),
    async stop() {
      await ctl('-m', 'immediate', 'stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
