/**
 * `pnpm soak [--minutes 10] [--rate 40]`: the four services in one process on the local
 * Postgres (a database of its own) and Redis, under mixed load at a fixed rate (issuance,
 * balances, categories, debits, a key rotation every second). Every interval (a minute; 10 s
 * for runs of a minute or less) it records RSS, event-loop delay, open handles and Postgres
 * connections; it fails if any of them ends more than 10 % above its value after the first
 * interval, if any request got an answer it must never get, or if any pool's credits differ
 * from its ledger once the load has stopped (`pnpm admin verify-ledger`'s check).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { closeRedis, connectRedis } from '@platform/credentials';
import { createPool, DEFAULT_POOL_MAX } from '@platform/db';
import { createPrivateDatabase, deleteKeys, silentLogger, testServers, uniqueId } from '@platform/testing';
import { startPlatform } from './platform';
import { MixedLoad } from './soak/load';
import { ledgerDifferences } from '@platform/user';
import { judge, judgeLedger, type LedgerReport, type Sample } from './soak/verdict';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, rate: { type: 'string', default: '40' } } });
const minutes = Number(values.minutes);
const rate = Number(values.rate);
if (!(minutes > 0) || !(rate > 0)) throw new Error('usage: pnpm soak [--minutes <n>] [--rate <requests per second>]');
const intervalMs = minutes <= 1 ? 10_000 : 60_000;

const IDLE_SOCKETS_CLOSED_MS = 6000;
/** The user service's usage batches each hold a connection of their own pool (USAGE_BATCH_LANES). */
const USAGE_BATCH_LANES = 2;
/** The soak's own connection, which reads pg_stat_activity. */
const METER_POOL_MAX = 1;

/**
 * Readings of the process, taken while the load is paused and nothing is in flight (and, with
 * --expose-gc, after a full collection), so that they compare across intervals: handles are
 * then what the process keeps once idle HTTP connections have closed (database and Redis
 * connections, servers, timers), RSS is what survives a collection. The
 * event-loop delay is the median over the loaded interval.
 */
function sampler(pool: pg.Pool, started: number) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const collect = (globalThis as { gc?: () => void }).gc;
  return {
    async take(): Promise<Sample> {
      // The median: a collection or a burst of other work on the machine moves the mean, not it.
      const loopDelayMs = Math.round((delay.percentile(50) / 1e6) * 100) / 100;
      // Idle keep-alive sockets close after 4 s (fetch) and 5 s (the servers): what is left
      // open after that is what the process holds on to.
      await new Promise((resolve) => setTimeout(resolve, IDLE_SOCKETS_CLOSED_MS));
      collect?.();
      const connections = await pool.query<{ count: string }>(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'",
      );
      delay.reset();
      return {
        atSeconds: Math.round((Date.now() - started) / 1000),
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
        heapUsedMb: Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10,
        loopDelayMs,
        openHandles: process.getActiveResourcesInfo().length,
        pgConnections: Number(connections.rows[0]?.count),
      };
    },
    stop: () => delay.disable(),
  };
}

async function main(): Promise<number> {
  const database = await createPrivateDatabase('soak');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'aap-soak-'));
  const prefix = `soak:${uniqueId()}:`;
  const secrets = { ADMIN_TOKEN: randomBytes(24).toString('hex'), SERVICE_JWT_SECRET: randomBytes(32).toString('hex') };
  const platform = await startPlatform({
    ...secrets,
    DATABASE_URL: database.url,
    REDIS_URL: testServers.redisUrl,
    REDIS_KEY_PREFIX: prefix,
    AUTH_PORT: '0',
    USER_PORT: '0',
    CATEGORIZATION_PORT: '0',
    NOTIFIER_PORT: '0',
    TOKEN_RATE_PER_ACCOUNT: '100000000',
    LOG_LEVEL: 'error',
    DATA_DIR: dataDir,
    USAGE_BATCH_LANES: String(USAGE_BATCH_LANES),
  });
  const pool = createPool({ connectionString: database.url, max: METER_POOL_MAX, logger: silentLogger() });
  try {
    const load = new MixedLoad({ ...platform.urls, adminToken: secrets.ADMIN_TOKEN, serviceJwtSecret: secrets.SERVICE_JWT_SECRET });
    await load.prepare(20);
    const started = Date.now();
    const samples: Sample[] = [];
    const meter = sampler(pool, started);
    const record = async (): Promise<void> => {
      const sample = await meter.take();
      samples.push(sample);
      console.log(JSON.stringify(sample));
    };
    console.log(`soak: ${minutes} min at ${rate} requests/s, a sample every ${intervalMs / 1000} s`);
    const report = await load.run(rate, started + minutes * 60_000, {
      everyMs: intervalMs,
      at: record,
    });
    await record();
    meter.stop();
    return verdict(samples, report, await ledgerDifferences(pool));
  } finally {
    await pool.end();
    await platform.stop();
    const redis = await connectRedis(testServers.redisUrl, silentLogger());
    await deleteKeys(redis, prefix);
    await closeRedis(redis);
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function verdict(samples: Sample[], report: Awaited<ReturnType<MixedLoad['run']>>, ledger: LedgerReport): number {
  // What the platform's pools may hold (the shared one, the usage batches') and the meter's own connection.
  const findings = judge(samples, { pgPoolCapacity: DEFAULT_POOL_MAX + USAGE_BATCH_LANES + METER_POOL_MAX });
  const total = Object.values(report.sent).reduce((sum, count) => sum + count, 0);
  console.log(`requests: ${total} (${JSON.stringify(report.sent)}), skipped for lack of capacity: ${report.skipped}`);
  console.log('metric        after first interval  at the end (median of last 3)  limit (+10 %, slack, pools)  result');
  for (const finding of findings) {
    const row = [
      finding.metric.padEnd(14),
      String(finding.baseline).padStart(20),
      String(finding.last).padStart(30),
      finding.limit.toFixed(1).padStart(14),
    ];
    console.log(`${row.join('')}  ${finding.grew ? 'GREW' : 'ok'}`);
  }
  const unexpected = report.unexpected.slice(0, 10).map((entry) => `${entry.operation}: ${entry.status}`);
  if (report.unexpected.length > 0) console.log(`unexpected answers: ${report.unexpected.length} (first: ${unexpected.join('; ')})`);
  const ledgerFindings = judgeLedger(ledger);
  console.log(`verify-ledger: ${ledger.pools} pools, ${ledgerFindings.length === 0 ? 'clean' : ledgerFindings.join('; ')}`);
  const failed = findings.some((finding) => finding.grew) || report.unexpected.length > 0 || ledgerFindings.length > 0;
  console.log(failed ? 'soak: FAILED' : 'soak: passed');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
