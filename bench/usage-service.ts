/**
 * The user service the usage benches load (bench/usage-scenarios.ts, bench/usage-batch-scenarios.ts):
 * its own process on the real Postgres, Redis and RabbitMQ, on a database of its own on the server
 * named, with a queue bound to its event exchange: its own outbox relay publishes its events
 * (measured with it, as in production), and no other relay or notifier on the machine (`pnpm
 * bench`'s platform process shares the server) takes them and competes for the same cores with a
 * transaction per event. Also the accounts the scenarios debit, and their credits.
 */
import path from 'node:path';
import { signServiceJwt } from '@platform/credentials';
import { BALANCE_CHANGED } from '@platform/events';
import {
  bindBenchQueue,
  type BenchQueueType,
  createPrivateDatabase,
  deleteTopology,
  freePort,
  startServiceProcess,
  uniqueId,
} from '@platform/testing';
import { verifyLedger } from '../scripts/chaos/verify-ledger';

export const ROOT = path.resolve(__dirname, '..');
const ADMIN_TOKEN = 'bench-usage-admin-token-0123456789';
export const SERVICE_JWT_SECRET = 'bench-usage-service-jwt-secret-0123456789abcdef';

export interface UsageBenchOptions {
  /** Seconds of load per scenario, and as many again of bare express. */
  seconds: number;
  /** Turns each scenario's load and its baseline's are split into, alternating (default 4). */
  turns?: number;
  connections: number;
  /** The Postgres server (any database on it): the service runs on a database of its own there. */
  databaseUrl: string;
  redisUrl: string;
  amqpUrl: string;
  /** A bare express baseline already running (else one is started and measured here), and its process id. */
  bareUrl?: string;
  barePid?: number | undefined;
  /** Extra environment for the user service (e.g. USAGE_BATCH_MAX_WAIT_MS). */
  userEnv?: NodeJS.ProcessEnv;
  /** The queue the service's events are routed to: in memory (default), or a quorum queue as the notifier's. */
  queueType?: BenchQueueType;
  /** Writes a V8 CPU profile of the user service into this folder. */
  cpuProfileDir?: string;
  /** Scenario names to run (default all). */
  only?: string[];
  /** Accounts of usage-many-accounts (default 100). */
  accounts?: number;
}

export interface Account {
  id: number;
  apiKey: string;
}

export const CREDITS = 1_000_000_000;

/** A service JWT for a whole run (the product gateway reuses one for a while too). */
export const benchServiceJwt = (): string =>
  signServiceJwt({ issuer: 'bench', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });

export async function createAccount(userUrl: string, credits: number): Promise<Account> {
  const res = await fetch(`${userUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${uniqueId('bench-usage')}@example.test`, credits: { '1': credits } }),
  });
  if (res.status !== 201) throw new Error(`account creation answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Account;
}

async function lookupCredits(userUrl: string, accounts: readonly Account[]): Promise<number> {
  let total = 0;
  for (const account of accounts) {
    const res = await fetch(`${userUrl}/admin/v1/accounts/${account.id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = (await res.json()) as { balances: Array<{ product_id: number; credits: number }> };
    total += body.balances.find((balance) => balance.product_id === 1)?.credits ?? 0;
  }
  return total;
}

/** `count` accounts of CREDITS each, created in groups: a thousand at once would measure the admin API's queue. */
async function createAccounts(userUrl: string, count: number): Promise<Account[]> {
  const accounts: Account[] = [];
  while (accounts.length < count) {
    const group = Math.min(50, count - accounts.length);
    accounts.push(...(await Promise.all(Array.from({ length: group }, () => createAccount(userUrl, CREDITS)))));
  }
  return accounts;
}

/** `count` funded accounts (createAccounts), and the credits their pools lost since (lookupCredits). */
export async function fundedAccounts(userUrl: string, count: number): Promise<{ accounts: Account[]; debited: () => Promise<number> }> {
  const accounts = await createAccounts(userUrl, count);
  const before = await lookupCredits(userUrl, accounts);
  return { accounts, debited: async () => before - (await lookupCredits(userUrl, accounts)) };
}

export interface Target {
  url: string;
  pid: number | undefined;
  /** The service's database (its outbox is sampled during the load). */
  databaseUrl?: string;
}

/** Runs `fn` against a user service process on a database and exchange of its own (its events routed to a bench queue), then removes them. */
export async function withBenchUserService<T>(options: UsageBenchOptions, fn: (user: Target) => Promise<T>): Promise<T> {
  const exchange = uniqueId('bench.balance.');
  const queue = uniqueId('bench.balance-changed.');
  await bindBenchQueue(options.amqpUrl, exchange, queue, BALANCE_CHANGED, { type: options.queueType ?? 'classic' });
  const database = await createPrivateDatabase('bench_usage', options.databaseUrl);
  try {
    const port = await freePort();
    const user = await startServiceProcess({
      script: 'services/user/src/main.ts',
      cwd: ROOT,
      port,
      // The image's young generation (Dockerfile, CMD).
      nodeArgs: [
        '--max-semi-space-size=64',
        ...(options.cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir]),
      ],
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        REDIS_URL: options.redisUrl,
        AMQP_URL: options.amqpUrl,
        BALANCE_EXCHANGE: exchange,
        REDIS_KEY_PREFIX: 'bench-usage:',
        ADMIN_TOKEN,
        SERVICE_JWT_SECRET,
        USER_PORT: String(port),
        LOG_LEVEL: 'warn',
        ...options.userEnv,
      },
    });
    let result: T;
    try {
      result = await fn({ url: user.url, pid: user.child.pid, databaseUrl: database.url });
    } finally {
      const exit = await user.stop();
      if (exit !== 0 || process.env.BENCH_SHOW_OUTPUT)
        process.stderr.write(`user service exited with ${exit}:\n${user.output().slice(-3000)}\n`);
    }
    // The accounting of every pool the run touched (CONTRACT §7.1): `pnpm admin verify-ledger`.
    const problems = await verifyLedger(database.url);
    if (problems.length > 0) throw new Error(problems.join('\n'));
    return result;
  } finally {
    await deleteTopology(options.amqpUrl, { queues: [queue], exchanges: [exchange] }).catch(() => undefined);
    await database.drop();
  }
}
