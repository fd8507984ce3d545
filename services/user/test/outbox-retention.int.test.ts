/**
 * The outbox stays bounded: published events are kept for OUTBOX_RETENTION_HOURS, then swept,
 * oldest first and in batches; pending and failed ones stay. Databases and an exchange of their
 * own: a sweep deletes every expired row of its database.
 */
import { randomUUID } from 'node:crypto';
import { createPool, migrate, startRetentionSweeper } from '@platform/db';
import { BALANCE_CHANGED } from '@platform/events';
import {
  createPrivateDatabase,
  deleteTopology,
  eventually,
  silentLogger,
  testServers,
  uniqueId,
  type PrivateDatabase,
} from '@platform/testing';
import { userMigrations } from '../src/migrations';
import { deletePublishedEvents } from '../src/store/outbox';
import { startHarness, testConfig } from './harness';
import { observeExchange } from './rabbitmq';
import { postUsage, usageBody } from './usage-calls';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('published events', () => {
  let db: PrivateDatabase;

  afterEach(async () => {
    await db?.drop();
  });

  it('when events were published longer ago than the retention, then a sweep deletes them in batches and keeps the rest', async () => {
    db = await createPrivateDatabase('outbox_retention');
    const pool = createPool({ connectionString: db.url, logger: silentLogger(), max: 2 });
    try {
      await migrate(pool, [userMigrations], silentLogger());
      const insert = (label: string, columns: string): Promise<unknown> =>
        pool.query(
          `INSERT INTO outbox_events (id, routing_key, payload, published_at, failed_at) VALUES ($1, $2, jsonb_build_object('label', $3::text), ${columns})`,
          [randomUUID(), BALANCE_CHANGED, label],
        );
      for (let index = 0; index < 5; index += 1) await insert(`old ${index}`, "now() - interval '25 hours', NULL");
      await insert('recent', "now() - interval '1 minute', NULL");
      await insert('pending', 'NULL, NULL');
      await insert('failed', "NULL, now() - interval '30 hours'");

      const sweeper = startRetentionSweeper({
        name: 'published event',
        pool,
        logger: silentLogger(),
        retentionMs: DAY_MS,
        intervalMs: 3_600_000,
        batchSize: 2,
        deleteExpired: deletePublishedEvents,
      });
      try {
        expect(await sweeper.sweep()).toBe(5);
      } finally {
        await sweeper.stop();
      }
      const kept = await pool.query<{ label: string }>("SELECT payload->>'label' AS label FROM outbox_events ORDER BY seq");
      expect(kept.rows.map((row) => row.label)).toEqual(['recent', 'pending', 'failed']);
    } finally {
      await pool.end();
    }
  });

  it('when the service publishes under a retention of 0, then its sweeper empties the outbox of what RabbitMQ confirmed', async () => {
    db = await createPrivateDatabase('outbox_retention');
    const exchange = uniqueId('test.user-retention.');
    const observer = await observeExchange(testServers.amqpUrl, exchange);
    const h = await startHarness({
      eventBus: 'amqp',
      config: testConfig({
        DATABASE_URL: db.url,
        BALANCE_EXCHANGE: exchange,
        REDIS_KEY_PREFIX: `${uniqueId('test-outbox-retention:')}:`,
        OUTBOX_RETENTION_HOURS: '0',
        OUTBOX_SWEEP_MS: '100',
      }),
    });
    try {
      const account = await h.account({ 1: 10 });
      for (let index = 0; index < 3; index += 1) expect((await postUsage(h.http, usageBody(account.apiKey))).status).toBe(200);
      // The three debits' events arrive (at least once), and nothing is left behind them.
      const arrived = () => [...new Map(observer.eventsOf(account.id).map((event) => [event.id, event.credits])).values()];
      await eventually(() => (arrived().length >= 3 ? true : undefined), 20_000, 'three events');
      await eventually(
        async () => ((await h.pool.query('SELECT count(*)::int AS n FROM outbox_events')).rows[0].n === 0 ? true : undefined),
        20_000,
        'an empty outbox',
      );
      expect(arrived()).toEqual([9, 8, 7]);
    } finally {
      await h.stop();
      await observer.close();
      await deleteTopology(testServers.amqpUrl, { exchanges: [exchange] });
    }
  });
});
