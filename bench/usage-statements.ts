/**
 * `pnpm bench:usage-statements`: what one usage batch costs Postgres, by the way it commits.
 * Drives the user service's own batch commit (createBatchCommit on the real account transaction) with batches
 * of debits over many accounts, one batch at a time on one connection, and reads the Postgres
 * backend's CPU time from /proc. The ways alternate batch by batch, so all see the machine alike:
 *   - `transaction`: BEGIN, lock and read, write, COMMIT (what a batch that takes a pool to or
 *     from 0 still does);
 *   - `alone, read`: a read without locks, then one statement that is its own transaction;
 *   - `alone, kept`: the same one statement, decided on the credits the commit kept from its
 *     previous batches over the same pools (no read: what a busy service mostly does).
 * Each way debits accounts of its own (so that the others' writes never make its kept credits
 * stale). CPU time, unlike requests per second, hardly moves with the machine's other load; the
 * bench's own CPU (the service's side of a batch: building and parsing the statements) is
 * reported beside the backend's.
 *
 *   pnpm bench:usage-statements [--batches 400] [--size 25] [--accounts 100]
 * BENCH_DATABASE_URL names the server (a database of its own is created there and dropped).
 */
import { randomUUID } from 'node:crypto';
import { createPool, migrate } from '@platform/db';
import { createPrivateDatabase } from '@platform/testing';
import { createLogger } from '@platform/runtime';
import type pg from 'pg';
import { createBatchCommit, type UsageCommitPorts } from '@platform/user/internal/domain/commit-usage-batch';
import type { Debit, DebitOutcome } from '@platform/user/internal/domain/usage-batch';
import { userMigrations } from '@platform/user/migrations';
import { NO_PAUSES } from '@platform/user/internal/pause-point';
import { repairIntents } from '@platform/user/internal/store/access-repairs';
import { createAccountTransactions } from '@platform/user/internal/store/account-transaction';
import { createUsageReads } from '@platform/user/internal/store/usage-batch';
import { processCpuMicros } from './process-cpu';

const option = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};

/** No access store: no batch here takes a pool to 0, so none writes one. */
const noAccess = (): Promise<void> => Promise.reject(new Error('the bench has no access store'));
const ports = (pool: pg.Pool, logger: ReturnType<typeof createLogger>): UsageCommitPorts => ({
  reads: createUsageReads(pool),
  accounts: createAccountTransactions(pool, {
    writer: { putKeys: noAccess, deleteKeys: noAccess, carryIssuanceWindow: noAccess, setPoolCredit: noAccess },
    intents: repairIntents(undefined, 'bench'),
    pool,
    logger,
    wake: () => undefined,
    pauses: NO_PAUSES,
  }),
});

const WAYS = ['transaction', 'alone, read', 'alone, kept'] as const;
type Way = (typeof WAYS)[number];
interface Spent {
  /** The Postgres backend's CPU, µs. */
  cpu: number;
  /** This process's CPU (the service's side of the batches), µs. */
  own: number;
  /** Seconds. */
  wall: number;
}

async function main(): Promise<void> {
  const batches = option('batches', 400);
  const size = option('size', 25);
  const accounts = option('accounts', 100);
  const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const db = await createPrivateDatabase('usage_statements', server);
  const logger = createLogger({ service: 'bench', level: 'error' });
  const pool = createPool({ connectionString: db.url, max: 1, logger });
  try {
    await migrate(pool, [userMigrations], logger);
    const ids = await pool.query<{ id: number }>(
      "INSERT INTO accounts (email) SELECT 'bench-' || n || '@example.com' FROM generate_series(1, $1) n RETURNING id",
      [accounts * WAYS.length],
    );
    await pool.query('INSERT INTO pool_balances (account_id, pool_id, credits) SELECT unnest($1::int[]), 1, 1000000000', [
      ids.rows.map((row) => row.id),
    ]);
    const backend = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
    const backendCpu = (): number => {
      const micros = processCpuMicros(backend);
      if (micros === undefined) throw new Error('the Postgres backend is not readable in /proc (is the server on this machine?)');
      return micros;
    };
    const commits: Record<Way, (debits: Debit[]) => Promise<DebitOutcome[]>> = {
      transaction: createBatchCommit(ports(pool, logger), { alone: false }),
      'alone, read': createBatchCommit(ports(pool, logger), { keptPools: 0 }),
      'alone, kept': createBatchCommit(ports(pool, logger)),
    };
    const spent = Object.fromEntries(WAYS.map((way) => [way, { cpu: 0, own: 0, wall: 0 }])) as Record<Way, Spent>;
    const batch = (way: Way): Debit[] =>
      Array.from({ length: size }, () => {
        const requestId = randomUUID();
        const accountId = ids.rows[WAYS.indexOf(way) * accounts + Math.floor(Math.random() * accounts)]?.id as number;
        return { requestId, digest: requestId, accountId, poolId: 1, productId: 1, units: 1 };
      });
    for (let round = 0; round < batches; round += 1) {
      // Each round in another order, so that no way always follows the same one.
      for (const way of WAYS.map((_, index) => WAYS[(index + round) % WAYS.length] as Way)) {
        const debits = batch(way);
        const cpu = backendCpu();
        const own = process.cpuUsage();
        const started = process.hrtime.bigint();
        const outcomes = await commits[way](debits);
        spent[way].wall += Number(process.hrtime.bigint() - started) / 1e9;
        const ownSpent = process.cpuUsage(own);
        spent[way].own += ownSpent.user + ownSpent.system;
        spent[way].cpu += backendCpu() - cpu;
        if (outcomes.some((outcome) => outcome.kind !== 'granted')) throw new Error(`${way}: a debit was not granted`);
      }
    }
    process.stdout.write(`${batches} batches of ${size} debits over ${accounts} accounts each way, alternating; one connection\n\n`);
    process.stdout.write('| way | Postgres CPU µs/debit | bench process CPU µs/debit | wall µs/batch |\n|---|---|---|---|\n');
    const perDebit = (micros: number): string => (micros / (batches * size)).toFixed(1);
    for (const way of WAYS) {
      const { cpu, own, wall } = spent[way];
      process.stdout.write(`| ${way} | ${perDebit(cpu)} | ${perDebit(own)} | ${((wall * 1e6) / batches).toFixed(0)} |\n`);
    }
  } finally {
    await pool.end();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
