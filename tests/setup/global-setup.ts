/**
 * Runs once before `pnpm test`: the real servers the integration tests need must answer, and the
 * production build (`tsc -b`, incremental) must be current, since some tests start the built
 * services. A server that is installed but stopped is started here; one that cannot be started
 * ends the run at once with one line saying which server to start and how (never hundreds of
 * red tests).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { portOpen, waitFor } from '../../packages/testing/src/cluster/processes';
import { startPgbouncer } from '../../packages/testing/src/pgbouncer';
import { ensureAccountPageBuilt } from '../../scripts/account-page-build';

const ROOT = path.resolve(__dirname, '../..');

interface Server {
  name: string;
  url: string;
  defaultPort: number;
  /** How to start it on this machine kind (Debian packages), or undefined when not installed. */
  start: string[] | undefined;
  startHint: string;
  waitSeconds: number;
}

const onPath = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const postgresVersion = (): string | undefined => (existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql')[0] : undefined);

function servers(): Server[] {
  const version = postgresVersion();
  return [
    {
      name: 'PostgreSQL',
      url: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      defaultPort: 5432,
      start: version && onPath('pg_ctlcluster') ? ['pg_ctlcluster', '--skip-systemctl-redirect', version, 'main', 'start'] : undefined,
      startHint: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
      waitSeconds: 60,
    },
    {
      name: 'Redis',
      url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      defaultPort: 6379,
      start: onPath('redis-server')
        ? ['redis-server', '--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no']
        : undefined,
      startHint: 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
      waitSeconds: 30,
    },
    {
      name: 'RabbitMQ',
      url: process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
      defaultPort: 5672,
      start: onPath('rabbitmq-server') ? ['rabbitmq-server', '-detached'] : undefined,
      startHint: 'rabbitmq-server -detached',
      waitSeconds: 120,
    },
  ];
}

function stop(message: string): never {
  process.stderr.write(`\n${message}\n`);
  process.exit(1);
}

async function ensureRunning(server: Server): Promise<void> {
  const url = new URL(server.url);
  const host = url.hostname;
  const port = Number(url.port || server.defaultPort);
  if (await portOpen(port, host)) return;
  const local = host === '127.0.0.1' || host === 'localhost';
  if (!local || !server.start)
    stop(`${server.name} is not answering on ${host}:${port}: start it (${server.startHint}) and run the tests again.`);
  const [command, ...args] = server.start;
  process.stderr.write(`${server.name} is not running on ${host}:${port}; starting it: ${server.start.join(' ')}\n`);
  spawnSync(command as string, args, { stdio: 'ignore' });
  await waitFor(() => portOpen(port, host), server.waitSeconds * 1000, `${server.name} on ${host}:${port}`).catch(() =>
    stop(`${server.name} did not come up on ${host}:${port}: start it (${server.startHint}) and run the tests again.`),
  );
}

function build(): void {
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  const result = spawnSync(tsc, ['-b', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) stop(`pnpm build failed; fix it before the tests run:\n${result.stdout}${result.stderr}`);
}

/**
 * TEST_PGBOUNCER=1: the whole suite with its database URL on a pgbouncer in transaction mode
 * (CONTRACT §1), started here in front of the test server and stopped when jest exits. The
 * workers inherit TEST_DATABASE_URL (the pooler) and TEST_DATABASE_DIRECT_URL (the server).
 */
async function throughPgbouncer(): Promise<void> {
  const target = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const bouncer = await startPgbouncer({
    dir: path.join(os.tmpdir(), `aap-test-pgbouncer-${process.pid}`),
    target,
    poolSize: 10,
    // Test files run in parallel, each with databases of its own: keep the server's 100 connections for others too.
    maxUserConnections: 60,
  });
  process.env.TEST_DATABASE_DIRECT_URL = target;
  process.env.TEST_DATABASE_URL = bouncer.url;
  process.stderr.write(`TEST_PGBOUNCER: the tests reach Postgres through pgbouncer (transaction mode) on ${bouncer.url}\n`);
}

export default async function globalSetup(): Promise<void> {
  for (const server of servers()) await ensureRunning(server);
  if (process.env.TEST_PGBOUNCER === '1') await throughPgbouncer();
  build();
  // The account page's Vite build (skipped when current): the browser tests and the deployed user service serve it.
  if (!ensureAccountPageBuilt((line) => process.stderr.write(`${line}\n`))) stop('the account page did not build; see above.');
}
