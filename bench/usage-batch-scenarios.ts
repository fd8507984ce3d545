/**
 * Batch debits (CONTRACT §7.1) under load, on the same user service process as the usage
 * scenarios (withBenchUserService): `POST /internal/v1/usage/batch` with batches of 100 over 100
 * and 1,000 accounts and over one pool, reported in debits per second (credits the pools lost
 * over the time under load); and a product app (bench/product-app.ts, its own process) whose
 * gateway debits coalesced, one request per call, or not at all, reported in product calls per
 * second. Each metered scenario checks its accounting: the credits lost equal the debits answered,
 * give or take those in flight when the load stopped.
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { freePort, startServiceProcess } from '@platform/testing';
import { cpuUse, processCpuMicros, type CpuUse } from './process-cpu';
import { combine, runTurn } from './usage-load';
import {
  ROOT,
  SERVICE_JWT_SECRET,
  benchServiceJwt,
  createAccounts,
  lookupCredits,
  withBenchUserService,
  type Account,
  type Target,
  type UsageBenchOptions,
} from './usage-service';
const BATCH_SIZE = 100;

export interface BatchScenarioResult {
  scenario: string;
  /** HTTP requests per second (batches, or product calls). */
  requestsPerSecond: number;
  /** Debits committed per second: credits the pools lost over the time under load (0 unmetered). */
  debitsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  debited: number;
  expectedDebits: number;
  inFlightAllowance: number;
  accountingOk: boolean;
  /**
   * CPU per debit (direct batches) or per product call (gateway), µs: the process under load (the
   * user service; for the gateway, the product app), Postgres, RabbitMQ, the load generator.
   */
  cpu: CpuUse;
  /** Gateway scenarios: the user service's CPU per product call (µs). */
  userServiceUs?: number | undefined;
}

interface BatchScenario {
  name: string;
  accounts: number;
  /** The product app's gateway mode, for a gateway scenario; a direct batch scenario has none. */
  gateway?: 'coalesced' | 'single' | 'unmetered';
}

export const BATCH_SCENARIOS: readonly BatchScenario[] = [
  { name: 'batch-100-accounts', accounts: 100 },
  { name: 'batch-1000-accounts', accounts: 1000 },
  { name: 'batch-one-pool', accounts: 1 },
  { name: 'gateway-coalesced', accounts: 100, gateway: 'coalesced' },
  { name: 'gateway-one-at-a-time', accounts: 100, gateway: 'single' },
  { name: 'gateway-unmetered', accounts: 100, gateway: 'unmetered' },
];

/**
 * Batch bodies as text, each item's requestId unique (this run's prefix and a counter). Built
 * before the load, for up to PREBUILT_DEBITS_PER_SECOND over the load's seconds, so that the load
 * generator, which shares the two cores with the service and Postgres, only picks the next one
 * (beyond them it builds on the fly).
 */
function batchBodies(accounts: readonly Account[]): () => string {
  const run = randomUUID();
  let next = 0;
  return () => {
    let items = '';
    for (let index = 0; index < BATCH_SIZE; index += 1) {
      const { apiKey } = accounts[next % accounts.length] as Account;
      items += `${index === 0 ? '' : ','}{"credential":${JSON.stringify(apiKey)},"productId":1,"units":1,"requestId":"${run}-${next}"}`;
      next += 1;
    }
    return `{"items":[${items}]}`;
  };
}

/** Debits per second the pre-built batch bodies last for (above the target of 50,000). */
const PREBUILT_DEBITS_PER_SECOND = 60_000;

function batchLoad(user: Target, accounts: readonly Account[], options: UsageBenchOptions): autocannon.Options {
  const jwt = benchServiceJwt();
  const build = batchBodies(accounts);
  const bodies = Array.from({ length: Math.ceil((options.seconds * PREBUILT_DEBITS_PER_SECOND) / BATCH_SIZE) }, build);
  let sent = 0;
  return {
    url: user.url,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: 'POST',
        path: '/internal/v1/usage/batch',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        setupRequest: (request) => {
          request.body = bodies[sent] ?? build();
          bodies[sent] = '';
          sent += 1;
          return request;
        },
      },
    ],
  };
}

function productLoad(url: string, accounts: readonly Account[], options: UsageBenchOptions): autocannon.Options {
  let next = 0;
  return {
    url,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const apiKey = (accounts[(next += 1) % accounts.length] as Account).apiKey;
          request.path = `/whois?domainName=example.com&apiKey=${apiKey}`;
          return request;
        },
      },
    ],
  };
}

async function runBatchScenario(scenario: BatchScenario, user: Target, options: UsageBenchOptions): Promise<BatchScenarioResult> {
  const accounts = await createAccounts(user.url, scenario.accounts);
  const before = await lookupCredits(user.url, accounts);
  const product = scenario.gateway ? await startProductApp(user.url, scenario.gateway, options.cpuProfileDir) : undefined;
  try {
    const load = product ? productLoad(product.url, accounts, options) : batchLoad(user, accounts, options);
    // Behind the gateway the user service is not the process under load: its CPU is read beside it.
    const userBefore = product && user.pid !== undefined ? processCpuMicros(user.pid) : undefined;
    const turn = await runTurn(load, product?.child.pid ?? user.pid);
    const userAfter = product && user.pid !== undefined ? processCpuMicros(user.pid) : undefined;
    const result = combine([turn]);
    const debited = before - (await lookupCredits(user.url, accounts));
    const perRequest = product ? 1 : BATCH_SIZE;
    const metered = scenario.gateway !== 'unmetered';
    const expectedDebits = metered ? (result.statuses['200'] ?? 0) * perRequest : 0;
    const inFlightAllowance = metered ? options.connections * perRequest : 0;
    return {
      scenario: scenario.name,
      requestsPerSecond: result.rps,
      debitsPerSecond: Math.round(debited / Math.max(turn.result.duration, 0.01)),
      p50: result.p50,
      p99: result.p99,
      statuses: result.statuses,
      debited,
      expectedDebits,
      inFlightAllowance,
      accountingOk: debited >= expectedDebits && debited <= expectedDebits + inFlightAllowance,
      cpu: cpuUse([turn], product ? turn.result.requests.total : debited),
      userServiceUs:
        userBefore === undefined || userAfter === undefined
          ? undefined
          : Math.round((userAfter - userBefore) / Math.max(turn.result.requests.total, 1)),
    };
  } finally {
    await product?.stop();
  }
}

async function startProductApp(userUrl: string, mode: string, cpuProfileDir: string | undefined) {
  const port = await freePort();
  return startServiceProcess({
    script: 'bench/product-app.ts',
    cwd: ROOT,
    port,
    nodeArgs: cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir],
    env: { PATH: process.env.PATH, PORT: String(port), USER_URL: userUrl, SERVICE_JWT_SECRET, MODE: mode },
  });
}

/** The batch and gateway scenarios (all, or those `only` names) on a user service of their own. */
export function runBatchBench(options: UsageBenchOptions): Promise<BatchScenarioResult[]> {
  return withBenchUserService(options, async (user) => {
    const results: BatchScenarioResult[] = [];
    for (const scenario of BATCH_SCENARIOS) {
      if (options.only === undefined || options.only.includes(scenario.name)) results.push(await runBatchScenario(scenario, user, options));
    }
    return results;
  });
}

/** The results as a Markdown table. */
export function formatBatchReport(
  results: readonly BatchScenarioResult[],
  options: Pick<UsageBenchOptions, 'seconds' | 'connections'>,
): string {
  const rows = results.map(
    (row) =>
      `| ${row.scenario} | ${row.requestsPerSecond} | ${row.debitsPerSecond} | ${row.p50} | ${row.p99} | ${JSON.stringify(row.statuses)} | ${[row.cpu.service, row.userServiceUs ?? '–', row.cpu.postgres, row.cpu.rabbitmq, row.cpu.bench].map((value) => value ?? '?').join(' · ')} | ${row.cpu.machineCores ?? '?'} | ${row.accountingOk ? 'ok' : `FAILED (debited ${row.debited}, expected ${row.expectedDebits} + ≤${row.inFlightAllowance})`} |`,
  );
  return [
    `Batch debits and the product gateway: ${options.seconds} s per scenario, ${options.connections} connections, batches of ${BATCH_SIZE}.`,
    '',
    '| scenario | requests/s | debits/s | p50 ms | p99 ms | statuses | CPU µs per debit (gateway: per call): service (gateway: product app) · user service behind the gateway · Postgres · RabbitMQ · load | busy cores | accounting |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
