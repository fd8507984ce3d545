/**
 * Each service as its own process on the real servers, as `pnpm migrate` then
 * `pnpm start:<name>` run them (CONTRACT §1, §8): ready only when its dependencies answer, stops
 * with exit 0 on SIGTERM, and refuses to start with one message naming every bad variable.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import {
  createPrivateDatabase,
  deleteTopology,
  startSmtpCapture,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type SmtpCapture,
} from '@platform/testing';

const ROOT = path.resolve(__dirname, '..');
const SERVICES = ['auth', 'user', 'categorization', 'notifier'] as const;

function baseEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, LOG_LEVEL: 'info' };
}

function startService(
  name: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcessWithoutNullStreams; url: Promise<string>; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], { cwd: ROOT, env });
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
    database = await createPrivateDatabase('standalone');
    smtp = await startSmtpCapture();
  });

  afterAll(async () => {
    for (const service of running) if (service.child.exitCode === null) service.child.kill('SIGKILL');
    await smtp.close();
    await deleteTopology(testServers.amqpUrl, {
      queues: [topology.queue, `${topology.queue}.dead`],
      exchanges: [topology.exchange, `${topology.exchange}.dlx`],
    });
    await database.drop();
  });

  it('when pnpm migrate runs twice, then it succeeds both times', () => {
    for (let run = 0; run < 2; run += 1) {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], {
        cwd: ROOT,
        env: { ...baseEnv(), DATABASE_URL: database.url },
        encoding: 'utf8',
      });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    }
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
    for (const url of urls) {
      const ready = await request(url).get('/health/ready');
      expect(ready.body).toEqual({ status: 'ready' });
      expect(ready.status).toBe(200);
    }
    const exits = running.map((service) => new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code))));
    for (const service of running) service.child.kill('SIGTERM');
    expect(await Promise.all(exits)).toEqual([0, 0, 0, 0]);
  }, 90_000);

  it.each(SERVICES)(
    'when %s starts without its variables, then it exits 1 with one message naming each of them',
    (name) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], {
        cwd: ROOT,
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
