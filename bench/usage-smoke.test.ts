/**
 * The usage scenarios of `pnpm bench`, about a second each, so that they never rot: every
 * scenario runs and its accounting holds (credits lost = debits answered 200, give or take the
 * requests in flight when the load stopped; one debit for a replayed requestId). Throughput is
 * not asserted here: the targets are for the benchmark on a quiet machine.
 */
import { createPrivateDatabase, testServers, type PrivateDatabase } from '@platform/testing';
import { runUsageBench } from './usage-scenarios';

let db: PrivateDatabase;

beforeAll(async () => {
  // The user service's outbox relay publishes every pending event of its database: one of its own.
  db = await createPrivateDatabase('usage_bench');
});

afterAll(async () => {
  await db?.drop();
});

it('when the usage scenarios run for a moment each, then every one is served and its accounting holds', async () => {
  const report = await runUsageBench({
    seconds: 0.6,
    connections: 10,
    accounts: 10,
    databaseUrl: db.url,
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
