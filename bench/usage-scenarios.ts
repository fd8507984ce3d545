/**
 * The usage API under load (issue: metering at line rate). Each scenario drives
 * `POST /internal/v1/usage` of a user service running as its own process on the real Postgres,
 * Redis and RabbitMQ, and checks the accounting afterwards: the credits the pools lost equal
 * the debits answered 200, give or take the requests still in flight when the load stopped.
 * The baseline is a bare express handler, measured in turns that alternate with the scenario's
 * (bare express first): both see the machine at the same moments, so that a change in its speed
 * during the run (seen here: bare express at 3,500 and 6,500 req/s a minute apart) skews no ratio.
 * The service runs as bench/usage-service.ts starts it.
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { freePort, startServiceProcess, type ServiceProcess } from '@platform/testing';
import { sampleOutboxBacklog, type OutboxBacklog } from './outbox-backlog';
import type { CpuUse } from './process-cpu';
import { combine, runTurn, type Throughput, type Turn } from './usage-load';
import {
  ROOT,
  benchServiceJwt,
  fundedAccounts,
  withBenchUserService,
  type Account,
  type Target,
  type UsageBenchOptions,
} from './usage-service';

const PATH = '/internal/v1/usage';
/** Turns per scenario unless `turns` says otherwise. */
export const DEFAULT_TURNS = 4;

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

async function runScenario(scenario: Scenario, user: Target, bareTarget: Target, options: UsageBenchOptions): Promise<UsageScenarioResult> {
  const userUrl = user.url;
  const count = scenario.accounts > 1 ? (options.accounts ?? scenario.accounts) : 1;
  const { accounts, debited: debitedSince } = await fundedAccounts(userUrl, count);
  const jwt = benchServiceJwt();
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
  const granted = result.statuses['200'] ?? 0;
  const debited = await debitedSince();
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
