/**
 * `pnpm bench:usage-statements`: what one usage batch costs Postgres, by the way it commits.
 * Drives the user service's own batch commit (createBatchCommit on the real store) with batches
 * of debits over many accounts, one batch at a time on one connection, and reads the Postgres
 * backend's CPU time from /proc. The ways alternate batch by batch, so both see the machine alike:
 *   - `transaction`: BEGIN, lock and read, write, COMMIT (what a batch that takes a pool to or
 *     from 0 still does);
 *   - `alone`: a read without locks, then one statement that is its own transaction.
 * CPU time, unlike requests per second, hardly moves with the machine's other load.
 *
 *   pnpm bench:usage-statements [--batches 400] [--size 25] [--accounts 100]
 * BENCH_DATABASE_URL names the server (a database of its own is created there and dropped).
 */
import { randomUUID } from 'node:crypto';
import { createPool, migrate } from '@platform/db';
import { createPrivateDatabase } from '@platform/testing';
import { createLogger } from '@platform/runtime';
import type { BalanceCommitHook } from '../services/user/src/domain/balance-commit-hook';
import { createBatchCommit } from '../services/user/src/domain/commit-usage-batch';
import type { Debit } from '../services/user/src/domain/usage-batch';
import { userMigrations } from '../services/user/src/migrations';
import { createUsageBatchStore } from '../services/user/src/store/usage-batch';
import { processCpuMicros } from './process-cpu';

const option = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};

const none = (): Promise<void> => Promise.resolve();
const hook = (needsTransaction: boolean): BalanceCommitHook => ({
  needsTransaction: () => needsTransaction,
  begin: () => ({ beforeCommit: none, afterCommit: none, afterRollback: none }),
  committedAlone: none,
});

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
      [accounts],
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
    const ways = {
      transaction: createBatchCommit(createUsageBatchStore(pool), hook(true)),
      alone: createBatchCommit(createUsageBatchStore(pool), hook(false)),
    };
    const spent = { transaction: { cpu: 0, wall: 0 }, alone: { cpu: 0, wall: 0 } };
    const batch = (): Debit[] =>
      Array.from({ length: size }, () => {
        const requestId = randomUUID();
        const accountId = ids.rows[Math.floor(Math.random() * accounts)]?.id as number;
        return { requestId, digest: requestId, accountId, poolId: 1, productId: 1, units: 1 };
      });
    for (let round = 0; round < batches; round += 1) {
      for (const way of round % 2 === 0 ? (['transaction', 'alone'] as const) : (['alone', 'transaction'] as const)) {
        const cpu = backendCpu();
        const started = process.hrtime.bigint();
        const outcomes = await ways[way](batch());
        spent[way].wall += Number(process.hrtime.bigint() - started) / 1e9;
        spent[way].cpu += backendCpu() - cpu;
        if (outcomes.some((outcome) => outcome.kind !== 'granted')) throw new Error(`${way}: a debit was not granted`);
      }
    }
    process.stdout.write(`${batches} batches of ${size} debits over ${accounts} accounts each way, alternating; one connection\n\n`);
    process.stdout.write('| way | Postgres CPU µs/debit | wall µs/batch |\n|---|---|---|\n');
    for (const [way, { cpu, wall }] of Object.entries(spent)) {
      process.stdout.write(`| ${way} | ${(cpu / (batches * size)).toFixed(1)} | ${((wall * 1e6) / batches).toFixed(0)} |\n`);
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
