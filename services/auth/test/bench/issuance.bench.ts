/**
 * Issuance throughput against a bare express handler (target: issuance ≥ 50 % of bare RPS).
 *   npx tsx services/auth/test/bench/issuance.bench.ts [seconds=10] [connections=32]
 * Needs the local Postgres and Redis. The server runs in this process; the load comes from a
 * child process so that it does not share the server's event loop.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import express from 'express';
import { createHttpApp, createLogger, handler, Health, sendBody } from '@platform/common';
import { anAccount } from '@platform/testing';
import { loadConfig, startAuthService } from '../../src';
import { deleteKeys, testPool } from '../harness';
import { Redis } from 'ioredis';

interface LoadResult {
  requests: number;
  ok: number;
  seconds: number;
}

function load(url: string, body: string, headers: Record<string, string>, seconds: number, connections: number): Promise<LoadResult> {
  const child = fork(__filename, ['--load'], { execArgv: process.execArgv });
  child.send({ url, body, headers, seconds, connections });
  return once(child, 'message').then(([result]) => result as LoadResult);
}

async function runLoad(job: {
  url: string;
  body: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections });
  const target = new URL(job.url);
  let requests = 0;
  let ok = 0;
  const deadline = Date.now() + job.seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...job.headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            requests += 1;
            if (res.statusCode === 200) ok += 1;
            resolve();
          });
        },
      );
      req.on('error', () => resolve());
      req.end(job.body);
    });
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) await one();
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: job.connections }, worker));
  agent.destroy();
  return { requests, ok, seconds: (Date.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 32);
  const body = JSON.stringify({ grantType: 'access_token', expiresIn: 1800 });

  const bare = express();
  bare.use(express.json());
  bare.post('/oauth/token', (_req, res) => {
    res.json({ accessToken: 'x', expiresIn: 1800 });
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await once(bareServer, 'listening');
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/oauth/token`;

  const pool = await testPool();
  const prefix = `bench:auth:${Date.now()}:`;
  const account = await anAccount(pool, { credits: { 1: 1000 } });
  const logs = new PassThrough().resume();
  const results: Record<string, { rps: number; cpuMicros: number }> = {};
  // Server-side CPU per answered request: steadier than req/s on a machine shared with other work.
  const measured = async (name: string, run: () => Promise<LoadResult>): Promise<LoadResult> => {
    const before = process.cpuUsage();
    const result = await run();
    const used = process.cpuUsage(before);
    results[name] = { rps: result.ok / result.seconds, cpuMicros: (used.user + used.system) / Math.max(1, result.ok) };
    return result;
  };
  for (const cacheMs of ['0', '1000']) {
    const config = loadConfig({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: prefix,
      ADMIN_TOKEN: 'bench-admin-token',
      SERVICE_JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      AUTH_PORT: '0',
      TOKEN_RATE_PER_ACCOUNT: '100000000',
      KEY_CACHE_MS: cacheMs,
    });
    const service = await startAuthService({ config, logger: createLogger({ service: 'auth', stream: logs }), provided: { pool } });
    const headers = { authorization: `Bearer ${Buffer.from(account.apiKey).toString('base64')}` };
    await load(`${service.url}/oauth/token`, body, headers, 2, connections); // warm-up
    const result = await measured(`issuance (KEY_CACHE_MS=${cacheMs})`, () =>
      load(`${service.url}/oauth/token`, body, headers, seconds, connections),
    );
    if (result.ok !== result.requests) process.stdout.write(`non-200 answers: ${result.requests - result.ok}\n`);
    await service.stop();
  }
  // The shared HTTP kernel alone (request id, metrics, request log, body parsing): the ceiling for any route.
  const kernel = createHttpApp({
    service: 'bench',
    logger: createLogger({ service: 'bench', stream: logs }),
    health: new Health({}),
    openapi: {},
  });
  kernel.app.post(
    '/oauth/token',
    handler('codeMessages', (_req, res) => {
      sendBody(res, 200, { accessToken: 'x', expiresIn: 1800 }, 'JSON');
    }),
  );
  const kernelServer = kernel.finish().listen(0, '127.0.0.1');
  await once(kernelServer, 'listening');
  const kernelUrl = `http://127.0.0.1:${(kernelServer.address() as AddressInfo).port}/oauth/token`;
  await load(kernelUrl, body, {}, 2, connections);
  await measured('kernel, trivial handler', () => load(kernelUrl, body, {}, seconds, connections));
  kernelServer.close();

  await load(bareUrl, body, {}, 2, connections);
  await measured('bare express', () => load(bareUrl, body, {}, seconds, connections));
  const baseline = results['bare express'] ?? { rps: 1, cpuMicros: 1 };
  process.stdout.write(`${''.padEnd(30)}   req/s  of bare   server CPU µs/req  bare CPU / CPU\n`);
  for (const [name, { rps, cpuMicros }] of Object.entries(results)) {
    const share = ((100 * rps) / baseline.rps).toFixed(0);
    const cpuShare = ((100 * baseline.cpuMicros) / cpuMicros).toFixed(0);
    process.stdout.write(
      `${name.padEnd(30)} ${rps.toFixed(0).padStart(7)}  ${share.padStart(5)} %  ${cpuMicros.toFixed(0).padStart(17)}  ${cpuShare.padStart(12)} %\n`,
    );
  }
  bareServer.close();
  const redis = new Redis('redis://127.0.0.1:6379');
  await deleteKeys(redis, prefix);
  await redis.quit();
  await pool.end();
}

if (process.argv.includes('--load')) {
  process.once('message', (job: Parameters<typeof runLoad>[0]) => {
    void runLoad(job).then((result) => {
      process.send?.(result);
      process.exit(0);
    });
  });
} else {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
}
