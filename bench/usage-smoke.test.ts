/**
 * The usage scenarios of `pnpm bench` and the batch and gateway scenarios of `bench:usage
 * --batch`, about a second each, so that they never rot: every scenario runs and its accounting
 * holds (credits lost = debits answered 200, give or take the requests in flight when the load
 * stopped; one debit for a replayed requestId). Throughput is not asserted here: the targets are
 * for the benchmark on a quiet machine.
 */
import { testServers } from '@platform/testing';
import { BATCH_SCENARIOS, isMetered, runBatchBench } from './usage-batch-scenarios';
import { runUsageBench } from './usage-scenarios';

it('when the usage scenarios run for a moment each, then every one is served and its accounting holds', async () => {
  const report = await runUsageBench({
    // Two turns each of bare express and the scenario, alternating (autocannon ends a load at its
    // next one-second sample: a turn lasts about a second).
    seconds: 1,
    turns: 2,
    connections: 10,
    accounts: 10,
    // The server: the bench runs the service on a database of its own there.
    databaseUrl: testServers.databaseUrl,
    redisUrl: testServers.redisUrl,
    amqpUrl: testServers.amqpUrl,
  });
  expect(report.scenarios.map((row) => row.scenario)).toEqual(['usage-one-pool', 'usage-many-accounts', 'usage-replay']);
  for (const row of report.scenarios) {
    expect(row.bare.rps).toBeGreaterThan(0);
    expect(row.statuses['200']).toBeGreaterThan(0);
    expect(Object.keys(row.statuses)).toEqual(['200']);
    expect(row).toMatchObject({ accountingOk: true });
  }
}, 120_000);

it('when the batch and gateway scenarios run for a moment each, then every one is served and every metered one accounts exactly', async () => {
  const results = await runBatchBench({
    seconds: 1,
    turns: 1,
    connections: 10,
    databaseUrl: testServers.databaseUrl,
    redisUrl: testServers.redisUrl,
    amqpUrl: testServers.amqpUrl,
  });
  expect(results.map((row) => row.scenario)).toEqual(BATCH_SCENARIOS.map((scenario) => scenario.name));
  for (const row of results) {
    expect(row.statuses).toEqual({ 200: expect.any(Number) });
    expect(row.requestsPerSecond).toBeGreaterThan(0);
    expect(row).toMatchObject({ accountingOk: true });
  }
  const debited = Object.fromEntries(results.map((row) => [row.scenario, row.debited]));
  // The two unmetered product apps debit nothing; every other scenario debits what it served.
  expect(debited).toMatchObject({ 'gateway-unmetered-app': 0, 'gateway-unmetered': 0 });
  for (const scenario of BATCH_SCENARIOS.filter(isMetered)) expect(debited[scenario.name]).toBeGreaterThan(0);
}, 180_000);
