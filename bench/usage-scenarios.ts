/**
 * The usage API under load (issue: metering at line rate). Each scenario drives
 * `POST /internal/v1/usage` of a user service running as its own process on the real Postgres,
 * Redis and RabbitMQ, and checks the accounting afterwards: the credits the pools lost equal
 * the debits answered 200, give or take the requests still in flight when the load stopped.
 * The baseline is a bare express handler, measured in turns that alternate with the scenario's
 * (bare express first): both see the machine at the same moments, so that a change in its speed
 * during the run (seen here: bare express at 3,500 and 6,500 req/s a minute apart) skews no ratio.
 *
 * The service gets a database of its own on the server named, and a queue bound to its event
 * exchange: its own outbox relay publishes its events (measured with it, as in production), and
 * no other relay or notifier on the machine (`pnpm bench`'s platform process shares the server)
 * takes them and competes for the same cores with a transaction per event.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
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
  type ServiceProcess,
} from '@platform/testing';
import { sampleOutboxBacklog, type OutboxBacklog } from './outbox-backlog';
import { cpuUse, readCpu, type CpuSpan, type CpuUse } from './process-cpu';

const ROOT = path.resolve(__dirname, '..');
const ADMIN_TOKEN = 'bench-usage-admin-token-0123456789';
export const SERVICE_JWT_SECRET = 'bench-usage-service-jwt-secret-0123456789abcdef';
const PATH = '/internal/v1/usage';
/** Turns per scenario unless `turns` says otherwise. */
export const DEFAULT_TURNS = 4;

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

/** Requests per second, latency percentiles (ms) and the server's CPU time per request (µs) of one load. */
export interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  /**
   * Where the load's CPU went, per request: the serving process (a measure the machine's other
   * load hardly moves), Postgres, RabbitMQ, the load generator; and the machine's busy cores.
   */
  cpu: CpuUse;
}

/** One scenario's measurement, its baseline and its accounting check. */
export interface UsageScenarioResult {
  scenario: string;
  /** The bare express handler, measured in turns alternating with the scenario's. */
  bare: Throughput;
  debitsPerSecond: number;
  p50: number;
  p99: number;
  /** The usage load's CPU (see Throughput.cpu). */
  cpu: CpuUse;
  /** Answers by status code. */
  statuses: Record<string, number>;
  /** Credits the pools lost during the run. */
  debited: number;
  /** Debits the run expected: the 200s (usage-replay: exactly one). */
  expectedDebits: number;
  /** How far debited may exceed expectedDebits: requests in flight when the load stopped. */
  inFlightAllowance: number;
  accountingOk: boolean;
  /** The largest outbox backlog sampled during the scenario's turns (bounded: a few batches, not growing with the load). */
  backlog: OutboxBacklog;
}

export interface UsageBenchReport {
  scenarios: UsageScenarioResult[];
}

export interface Account {
  id: number;
  apiKey: string;
}

export const CREDITS = 1_000_000_000;

export async function createAccount(userUrl: string, credits: number): Promise<Account> {
  const res = await fetch(`${userUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${uniqueId('bench-usage')}@example.test`, credits: { '1': credits } }),
  });
  if (res.status !== 201) throw new Error(`account creation answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Account;
}

export async function lookupCredits(userUrl: string, accounts: readonly Account[]): Promise<number> {
  let total = 0;
  for (const account of accounts) {
    const res = await fetch(`${userUrl}/admin/v1/accounts/${account.id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = (await res.json()) as { balances: Array<{ product_id: number; credits: number }> };
    total += body.balances.find((balance) => balance.product_id === 1)?.credits ?? 0;
  }
  return total;
}

export interface Load extends Throughput {
  statuses: Record<string, number>;
}

/** One turn of load: what autocannon counted, every response's latency (ms), and the CPU around it. */
export interface Turn extends CpuSpan {
  result: autocannon.Result;
  latencies: number[];
}

export function runTurn(options: autocannon.Options, serverPid: number | undefined): Promise<Turn> {
  const latencies: number[] = [];
  const before = readCpu(serverPid);
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, result) => {
      if (error) reject(error instanceof Error ? error : new Error('autocannon failed', { cause: error }));
      else resolve({ result, latencies, before, after: readCpu(serverPid) });
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

/** The value below which `share` of the sorted values lie (nearest rank), to 0.1 ms. */
function percentile(sorted: readonly number[], share: number): number {
  const value = sorted[Math.max(Math.ceil(share * sorted.length) - 1, 0)] ?? 0;
  return Math.round(value * 10) / 10;
}

/** The turns of one load as one: requests over the time under load, percentiles over every response. */
export function combine(turns: readonly Turn[]): Load {
  const requests = turns.reduce((sum, turn) => sum + turn.result.requests.total, 0);
  const seconds = turns.reduce((sum, turn) => sum + turn.result.duration, 0);
  const latencies = turns.flatMap((turn) => turn.latencies).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const turn of turns) {
    for (const [status, stats] of Object.entries(turn.result.statusCodeStats ?? {})) {
      statuses[status] = (statuses[status] ?? 0) + (stats as { count: number }).count;
    }
  }
  return {
    rps: Math.round(requests / Math.max(seconds, 0.01)),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpu: cpuUse(turns, requests),
    statuses,
  };
}

interface Scenario {
  name: string;
  accounts: number;
  /** The body of the request number `index` (requestIds decide unique or replayed). */
  body: (accounts: readonly Account[], index: number) => Record<string, unknown>;
  replay: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'usage-one-pool',
    accounts: 1,
    replay: false,
    body: (accounts) => ({ credential: (accounts[0] as Account).apiKey, productId: 1, units: 1, requestId: randomUUID() }),
  },
  {
    name: 'usage-many-accounts',
    accounts: 100,
    replay: false,
    body: (accounts, index) => ({
      credential: (accounts[index % accounts.length] as Account).apiKey,
      productId: 1,
      units: 1,
      requestId: randomUUID(),
    }),
  },
  {
    name: 'usage-replay',
    accounts: 1,
    replay: true,
    body: (accounts) => ({
      credential: (accounts[0] as Account).apiKey,
      productId: 1,
      units: 1,
      requestId: `replay-${(accounts[0] as Account).id}`,
    }),
  },
];

function bareLoad(url: string, options: UsageBenchOptions, seconds: number): autocannon.Options {
  return {
    url,
    connections: options.connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ credential: 'x'.repeat(32), productId: 1, units: 1, requestId: randomUUID() }),
  };
}

export interface Target {
  url: string;
  pid: number | undefined;
  /** The service's database (its outbox is sampled during the load). */
  databaseUrl?: string;
}

async function runScenario(scenario: Scenario, user: Target, bareTarget: Target, options: UsageBenchOptions): Promise<UsageScenarioResult> {
  const userUrl = user.url;
  const count = scenario.accounts > 1 ? (options.accounts ?? scenario.accounts) : 1;
  const accounts = await Promise.all(Array.from({ length: count }, () => createAccount(userUrl, CREDITS)));
  const before = await lookupCredits(userUrl, accounts);
  // A service JWT for the whole run (the product gateway reuses one for a while too).
  const jwt = signServiceJwt({ issuer: 'bench', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });
  const turns = options.turns ?? DEFAULT_TURNS;
  const seconds = options.seconds / turns;
  let sent = 0;
  const usageLoad: autocannon.Options = {
    url: userUrl,
    connections: options.connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: PATH,
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        // autocannon passes a fresh copy of the request on every call: the body is set on it.
        // Copying it again with an object spread costs Node 20 about a microsecond a request
        // (docs/benchmarks.md, "Object spreads on Node 20").
        setupRequest: (request) => {
          request.body = JSON.stringify(scenario.body(accounts, (sent += 1)));
          return request;
        },
      },
    ],
  };
  const bareTurns: Turn[] = [];
  const usageTurns: Turn[] = [];
  const backlog = { events: 0, messages: 0 };
  for (let turn = 0; turn < turns; turn += 1) {
    bareTurns.push(await runTurn(bareLoad(bareTarget.url, options, seconds), bareTarget.pid));
    const sampler = user.databaseUrl === undefined ? undefined : sampleOutboxBacklog(user.databaseUrl);
    usageTurns.push(await runTurn(usageLoad, user.pid));
    const seen = await sampler?.stop();
    backlog.events = Math.max(backlog.events, seen?.events ?? 0);
    backlog.messages = Math.max(backlog.messages, seen?.messages ?? 0);
  }
  const bare = combine(bareTurns);
  const result = combine(usageTurns);
  const after = await lookupCredits(userUrl, accounts);
  const granted = result.statuses['200'] ?? 0;
  const debited = before - after;
  const expectedDebits = scenario.replay ? Math.min(granted, 1) : granted;
  // Each turn may stop with every connection's request still in the service (debited, unanswered).
  const inFlightAllowance = scenario.replay ? 0 : options.connections * turns;
  return {
    scenario: scenario.name,
    bare: { rps: bare.rps, p50: bare.p50, p99: bare.p99, cpu: bare.cpu },
    debitsPerSecond: result.rps,
    p50: result.p50,
    p99: result.p99,
    cpu: result.cpu,
    statuses: result.statuses,
    debited,
    expectedDebits,
    inFlightAllowance,
    accountingOk: debited >= expectedDebits && debited <= expectedDebits + inFlightAllowance,
    backlog,
  };
}

async function startBare(): Promise<ServiceProcess> {
  const port = await freePort();
  return startServiceProcess({
    script: 'bench/bare-express.ts',
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: String(port) },
    port,
    readyPath: '/',
  });
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
      nodeArgs: options.cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir],
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
    try {
      return await fn({ url: user.url, pid: user.child.pid, databaseUrl: database.url });
    } finally {
      const exit = await user.stop();
      if (exit !== 0 || process.env.BENCH_SHOW_OUTPUT)
        process.stderr.write(`user service exited with ${exit}:\n${user.output().slice(-3000)}\n`);
    }
  } finally {
    await deleteTopology(options.amqpUrl, { queues: [queue], exchanges: [exchange] }).catch(() => undefined);
    await database.drop();
  }
}

/** Starts a user service (withBenchUserService) and a bare express baseline unless given, runs the scenarios. */
export function runUsageBench(options: UsageBenchOptions): Promise<UsageBenchReport> {
  return withBenchUserService(options, async (user) => {
    const bare = options.bareUrl === undefined ? await startBare() : undefined;
    try {
      const bareUrl = options.bareUrl ?? (bare as ServiceProcess).url;
      const scenarios: UsageScenarioResult[] = [];
      for (const scenario of SCENARIOS) {
        if (options.only === undefined || options.only.includes(scenario.name)) {
          const bareTarget = { url: bareUrl, pid: options.bareUrl === undefined ? bare?.child.pid : options.barePid };
          scenarios.push(await runScenario(scenario, user, bareTarget, options));
        }
      }
      return { scenarios };
    } finally {
      await bare?.stop();
    }
  });
}
