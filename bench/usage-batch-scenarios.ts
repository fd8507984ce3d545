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
import type { ServiceProcess } from '@platform/testing';
import { cpuUse, processCpuMicros, type CpuUse } from './process-cpu';
import { productLoad, startProductApp } from './usage-gateway-load';
import { combine, runTurn, type Turn } from './usage-load';
import { benchServiceJwt, fundedAccounts, withBenchUserService, type Account, type Target, type UsageBenchOptions } from './usage-service';
const BATCH_SIZE = 100;
/** Turns each group's scenarios are loaded in, alternating, unless `turns` says otherwise. */
export const DEFAULT_BATCH_TURNS = 2;

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
  /**
   * The product app's mode (bench/product-app.ts), for a gateway scenario; a direct batch
   * scenario has none. `unmetered-app`: the gateway's route without its debit; `unmetered`: a
   * bare express route.
   */
  gateway?: 'coalesced' | 'single' | 'unmetered-app' | 'unmetered';
}

/** Whether a scenario's calls debit credits: all but the two unmetered product apps. */
export const isMetered = (scenario: Pick<BatchScenario, 'gateway'>): boolean =>
  scenario.gateway !== 'unmetered' && scenario.gateway !== 'unmetered-app';

export const BATCH_SCENARIOS: readonly BatchScenario[] = [
  { name: 'batch-100-accounts', accounts: 100 },
  { name: 'batch-1000-accounts', accounts: 1000 },
  { name: 'batch-one-pool', accounts: 1 },
  { name: 'gateway-coalesced', accounts: 100, gateway: 'coalesced' },
  { name: 'gateway-one-at-a-time', accounts: 100, gateway: 'single' },
  { name: 'gateway-unmetered-app', accounts: 100, gateway: 'unmetered-app' },
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

function batchLoad(user: Target, accounts: readonly Account[], options: UsageBenchOptions, seconds: number): autocannon.Options {
  const jwt = benchServiceJwt();
  const build = batchBodies(accounts);
  const bodies = Array.from({ length: Math.ceil((options.seconds * PREBUILT_DEBITS_PER_SECOND) / BATCH_SIZE) }, build);
  let sent = 0;
  return {
    url: user.url,
    connections: options.connections,
    duration: seconds,
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

/** A scenario ready to be loaded in turns: its accounts and their credits before, its load, the process under it. */
interface Prepared {
  scenario: BatchScenario;
  /** Credits the scenario's pools lost since they were funded. */
  debited: () => Promise<number>;
  product: ServiceProcess | undefined;
  load: autocannon.Options;
  pid: number | undefined;
  turns: Turn[];
  /** Behind the gateway the user service is not the process under load: its CPU is read beside it (µs over the turns). */
  userCpu: number;
}

async function prepare(scenario: BatchScenario, user: Target, options: UsageBenchOptions, seconds: number): Promise<Prepared> {
  const { accounts, debited } = await fundedAccounts(user.url, scenario.accounts);
  const product = scenario.gateway ? await startProductApp(user.url, scenario.gateway, options.cpuProfileDir) : undefined;
  const load = product ? productLoad(product.url, accounts, options, seconds) : batchLoad(user, accounts, options, seconds);
  return { scenario, debited, product, load, pid: product?.child.pid ?? user.pid, turns: [], userCpu: 0 };
}

async function loadTurn(prepared: Prepared, user: Target): Promise<void> {
  const userBefore = prepared.product && user.pid !== undefined ? processCpuMicros(user.pid) : undefined;
  prepared.turns.push(await runTurn(prepared.load, prepared.pid));
  const userAfter = prepared.product && user.pid !== undefined ? processCpuMicros(user.pid) : undefined;
  if (userBefore !== undefined && userAfter !== undefined) prepared.userCpu += userAfter - userBefore;
}

async function finish(prepared: Prepared, options: UsageBenchOptions): Promise<BatchScenarioResult> {
  const { scenario, turns, product } = prepared;
  const result = combine(turns);
  const debited = await prepared.debited();
  const perRequest = product ? 1 : BATCH_SIZE;
  const metered = isMetered(scenario);
  const expectedDebits = metered ? (result.statuses['200'] ?? 0) * perRequest : 0;
  // Each turn may stop with every connection's request still in the service (debited, unanswered).
  const inFlightAllowance = metered ? options.connections * perRequest * turns.length : 0;
  const requests = turns.reduce((sum, turn) => sum + turn.result.requests.total, 0);
  const seconds = turns.reduce((sum, turn) => sum + turn.result.duration, 0);
  return {
    scenario: scenario.name,
    requestsPerSecond: result.rps,
    debitsPerSecond: Math.round(debited / Math.max(seconds, 0.01)),
    p50: result.p50,
    p99: result.p99,
    statuses: result.statuses,
    debited,
    expectedDebits,
    inFlightAllowance,
    accountingOk: debited >= expectedDebits && debited <= expectedDebits + inFlightAllowance,
    cpu: cpuUse(turns, product ? requests : debited),
    userServiceUs: product ? Math.round(prepared.userCpu / Math.max(requests, 1)) : undefined,
  };
}

/**
 * The scenarios of one group (the direct batches, or the gateway's), loaded in turns that
 * alternate between them (`turns`, default 2): on a machine shared with other work, all see it
 * at the same moments, as the usage scenarios and bare express do.
 */
async function runGroup(scenarios: readonly BatchScenario[], user: Target, options: UsageBenchOptions): Promise<BatchScenarioResult[]> {
  const turns = options.turns ?? DEFAULT_BATCH_TURNS;
  const prepared: Prepared[] = [];
  try {
    for (const scenario of scenarios) prepared.push(await prepare(scenario, user, options, options.seconds / turns));
    for (let turn = 0; turn < turns; turn += 1) for (const each of prepared) await loadTurn(each, user);
    const results: BatchScenarioResult[] = [];
    for (const each of prepared) results.push(await finish(each, options));
    return results;
  } finally {
    for (const each of prepared) await each.product?.stop();
  }
}

/** The batch and gateway scenarios (all, or those `only` names) on a user service of their own. */
export function runBatchBench(options: UsageBenchOptions): Promise<BatchScenarioResult[]> {
  return withBenchUserService(options, async (user) => {
    const wanted = BATCH_SCENARIOS.filter((scenario) => options.only === undefined || options.only.includes(scenario.name));
    const direct = await runGroup(
      wanted.filter((scenario) => scenario.gateway === undefined),
      user,
      options,
    );
    return [
      ...direct,
      ...(await runGroup(
        wanted.filter((scenario) => scenario.gateway !== undefined),
        user,
        options,
      )),
    ];
  });
}

/** The results as a Markdown table. */
export function formatBatchReport(
  results: readonly BatchScenarioResult[],
  options: Pick<UsageBenchOptions, 'seconds' | 'connections' | 'turns'>,
): string {
  const rows = results.map(
    (row) =>
      `| ${row.scenario} | ${row.requestsPerSecond} | ${row.debitsPerSecond} | ${row.p50} | ${row.p99} | ${JSON.stringify(row.statuses)} | ${[row.cpu.service, row.userServiceUs ?? '–', row.cpu.postgres, row.cpu.rabbitmq, row.cpu.bench].map((value) => value ?? '?').join(' · ')} | ${row.cpu.machineCores ?? '?'} | ${row.accountingOk ? 'ok' : `FAILED (debited ${row.debited}, expected ${row.expectedDebits} + ≤${row.inFlightAllowance})`} |`,
  );
  return [
    `Batch debits and the product gateway: ${options.seconds} s per scenario in ${options.turns ?? DEFAULT_BATCH_TURNS} turns alternating within each group (direct batches, gateway), ${options.connections} connections, batches of ${BATCH_SIZE}.`,
    '',
    '| scenario | requests/s | debits/s | p50 ms | p99 ms | statuses | CPU µs per debit (gateway: per call): service (gateway: product app) · user service behind the gateway · Postgres · RabbitMQ · load | busy cores | accounting |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
