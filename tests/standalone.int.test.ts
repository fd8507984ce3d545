/**
 * Each service as its own process on the real servers, as its image runs it: the `pnpm build`
 * output deployed with its production dependencies only (`pnpm deploy --prod`, the Dockerfile's
 * build step) into a folder of its own, started with plain `node dist/main.js` (no tsx, no
 * source), after the migration commands (CONTRACT §1, §8). Ready only when its dependencies
 * answer, stops with exit 0 on SIGTERM, and refuses to start with one message naming every bad
 * variable. The jest global setup builds first (`tsc -b`, incremental).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPrivateDatabase,
  deleteTopology,
  readyBody,
  startSmtpCapture,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type SmtpCapture,
  sourceNodeArgs,
} from '@platform/testing';

const ROOT = path.resolve(__dirname, '..');
const SERVICES = ['auth', 'user', 'categorization', 'notifier'] as const;
/** The services that own tables, each with its own migration command. */
const MIGRATING = ['user', 'categorization', 'notifier'] as const;
const DEPLOYED = mkdtempSync(path.join(os.tmpdir(), 'aap-deploy-'));
const built = (name: string, entry: string): string => path.join(DEPLOYED, name, 'dist', `${entry}.js`);
/** pnpm itself: the one running `pnpm test`, else the one on PATH. */
const pnpm = process.env.npm_execpath?.includes('pnpm') ? [process.execPath, process.env.npm_execpath] : ['pnpm'];

/** The Dockerfile's dependency step for one service: its package, dist/ and production dependencies. */
function deploy(name: string): Promise<void> {
  const [command, ...args] = pnpm;
  const target = path.join(DEPLOYED, name);
  const child = spawn(
    command as string,
    [...args, '--filter', `@platform/${name}`, 'deploy', '--legacy', '--prod', '--prefer-offline', target],
    {
      cwd: ROOT,
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pnpm deploy of ${name} failed:\n${output}`)))),
  );
}

function baseEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, LOG_LEVEL: 'info' };
}

function startService(
  name: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcessWithoutNullStreams; url: Promise<string>; output: () => string } {
  const child = spawn(process.execPath, [built(name, 'main')], { cwd: path.join(DEPLOYED, name), env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    const deadline = Date.now() + 60_000;
    const timer = setInterval(() => {
      const match = /"message":"listening"[^\n]*"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve(match[1] as string);
      } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`${name} did not start:\n${output}`));
      }
    }, 50);
  });
  return { child, url, output: () => output };
}

describe('services started one per process on the real servers', () => {
  // A database and a RabbitMQ topology of its own: the user service's outbox relay publishes
  // every pending event of its database, and the notifier declares its queues.
  const suffix = uniqueId();
  const topology = { exchange: `test.standalone.${suffix}`, queue: `test.standalone.${suffix}` };
  let database: PrivateDatabase;
  let smtp: SmtpCapture;
  const running: Array<ReturnType<typeof startService>> = [];

  beforeAll(async () => {
    await Promise.all(SERVICES.map((name) => deploy(name)));
    database = await createPrivateDatabase('standalone');
    smtp = await startSmtpCapture();
  }, 180_000);

  afterAll(async () => {
    for (const service of running) if (service.child.exitCode === null) service.child.kill('SIGKILL');
    await smtp.close();
    await deleteTopology(testServers.amqpUrl, {
      queues: [topology.queue, `${topology.queue}.dead`],
      exchanges: [topology.exchange, `${topology.exchange}.dlx`],
    });
    await database.drop();
    rmSync(DEPLOYED, { recursive: true, force: true });
  });

  it.each(SERVICES)('when %s is deployed, then it holds its build and production dependencies only', (name) => {
    const modules = path.join(DEPLOYED, name, 'node_modules');
    for (const devOnly of ['tsx', 'typescript', 'jest', '@swc', '@electric-sql', 'autocannon'])
      expect(existsSync(path.join(modules, devOnly))).toBe(false);
    for (const workspace of readdirSync(path.join(modules, '@platform'))) {
      expect(readdirSync(path.join(modules, '@platform', workspace)).sort()).toEqual(expect.arrayContaining(['dist', 'package.json']));
      expect(existsSync(path.join(modules, '@platform', workspace, 'src'))).toBe(false);
    }
    expect(existsSync(path.join(DEPLOYED, name, 'src'))).toBe(false);
  });

  it('when user is deployed, then it ships the built account page it serves at /account/', () => {
    const page = path.join(DEPLOYED, 'user', 'node_modules', '@platform', 'account-page', 'dist');
    expect(existsSync(path.join(page, 'index.html'))).toBe(true);
    expect(readdirSync(path.join(page, 'assets')).some((file) => file.endsWith('.js'))).toBe(true);
  });

  it('when each built migration command runs twice, then it succeeds both times', () => {
    for (let run = 0; run < 2; run += 1) {
      for (const name of MIGRATING) {
        const result = spawnSync(process.execPath, [built(name, 'migrate')], {
          cwd: path.join(DEPLOYED, name),
          env: { ...baseEnv(), DATABASE_URL: database.url },
          encoding: 'utf8',
        });
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
      }
    }
  }, 60_000);

  it('when pnpm migrate (every service, from source) runs after them, then it succeeds', () => {
    const result = spawnSync(process.execPath, [...sourceNodeArgs, 'scripts/migrate.ts'], {
      cwd: ROOT,
      env: { ...baseEnv(), DATABASE_URL: database.url },
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 60_000);

  it('when each service starts with the real URLs, then each is ready, and SIGTERM stops it with exit 0', async () => {
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(),
      DATABASE_URL: database.url,
      REDIS_URL: testServers.redisUrl,
      REDIS_KEY_PREFIX: `test:standalone:${suffix}:`,
      AMQP_URL: testServers.amqpUrl,
      SMTP_URL: smtp.url,
      ADMIN_TOKEN: 'standalone-admin-token-0123456789',
      SERVICE_JWT_SECRET: 'standalone-service-jwt-secret-0123456789abcdef',
      AUTH_URL: 'http://auth.standalone.test',
      BALANCE_EXCHANGE: topology.exchange,
      NOTIFIER_QUEUE: topology.queue,
      AUTH_PORT: '0',
      USER_PORT: '0',
      CATEGORIZATION_PORT: '0',
      NOTIFIER_PORT: '0',
    };
    for (const name of SERVICES) running.push(startService(name, env));
    const urls = await Promise.all(running.map((service) => service.url));
    // Listening comes first: a service answers its probes while its consumer attaches (the
    // notifier's queue is declared after the listener opens), as a Kubernetes probe sees it.
    for (const url of urls) {
      expect(await readyBody(url)).toEqual({ status: 'ready' });
    }
    const exits = running.map((service) => new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code))));
    for (const service of running) service.child.kill('SIGTERM');
    expect(await Promise.all(exits)).toEqual([0, 0, 0, 0]);
  }, 90_000);

  it.each(SERVICES)(
    'when %s starts without its variables, then it exits 1 with one message naming each of them',
    (name) => {
      const result = spawnSync(process.execPath, [built(name, 'main')], {
        cwd: path.join(DEPLOYED, name),
        env: { ...baseEnv(), DATABASE_URL: 'not a url', [`${name.toUpperCase()}_PORT`]: 'eighty' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^invalid configuration: /);
      expect(lines[0]).toContain('DATABASE_URL');
      expect(lines[0]).toContain(`${name.toUpperCase()}_PORT`);
    },
    60_000,
  );
});
