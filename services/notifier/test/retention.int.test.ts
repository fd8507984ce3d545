/**
 * The notifier's tables stay bounded: handled event ids are kept
 * NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS, sent e-mails NOTIFIER_MAIL_RETENTION_HOURS, then
 * swept oldest first and in batches; unsent e-mails stay, whatever their age. A database of
 * its own: a sweep deletes every expired row of its database.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { createPool, migrate, startRetentionSweeper } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import { createInProcessEventBus } from '@platform/events';
import { createPrivateDatabase, eventually, silentLogger, testServers, type PrivateDatabase } from '@platform/testing';
import { loadConfig } from '../src/config';
import { notifierMigrations } from '../src/migrations';
import { runNotifierService } from '../src/service';
import { deleteProcessedEvents, deleteSentMail } from '../src/store/retention';

const HOUR_MS = 60 * 60 * 1000;

async function insertProcessed(pool: pg.Pool, label: number, age: string): Promise<void> {
  await pool.query(
    `INSERT INTO notifier_processed_events (event_id, account_id, pool_id, processed_at) VALUES ($1, $2, 1, now() - $3::interval)`,
    [randomUUID(), label, age],
  );
}

async function insertMail(pool: pg.Pool, label: string, sentAge: string | null, createdAge = '400 hours'): Promise<void> {
  await pool.query(
    `INSERT INTO notifier_mail_outbox (queue, message_id, event_id, account_id, pool_id, kind, recipient, subject, text_body, html_body, created_at, sent_at)
     VALUES ('retention-test', $1, $2, 1, 1, 'low', 'a@example.test', $1, '', '', now() - $3::interval, now() - $4::interval)`,
    [label, randomUUID(), createdAge, sentAge],
  );
}

const labels = async (pool: pg.Pool): Promise<{ processed: number[]; mail: string[] }> => ({
  processed: (await pool.query<{ account_id: number }>('SELECT account_id FROM notifier_processed_events ORDER BY account_id')).rows.map(
    (row) => row.account_id,
  ),
  mail: (await pool.query<{ subject: string }>('SELECT subject FROM notifier_mail_outbox ORDER BY id')).rows.map((row) => row.subject),
});

describe('notifier retention', () => {
  let db: PrivateDatabase;
  let pool: pg.Pool;

  beforeEach(async () => {
    db = await createPrivateDatabase('notifier_retention');
    pool = createPool({ connectionString: db.url, logger: silentLogger(), max: 2 });
    await migrate(pool, [userMigrations], silentLogger());
    await migrate(pool, [notifierMigrations], silentLogger());
  });

  afterEach(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('when rows are older than their retention, then a sweep deletes them in batches and keeps the recent and the unsent', async () => {
    for (let index = 1; index <= 5; index += 1) await insertProcessed(pool, index, '200 hours');
    await insertProcessed(pool, 6, '1 hour');
    for (let index = 1; index <= 3; index += 1) await insertMail(pool, `sent long ago ${index}`, '200 hours');
    await insertMail(pool, 'sent recently', '1 hour');
    await insertMail(pool, 'never sent', null);

    const sweep = async (deleteExpired: typeof deleteSentMail): Promise<number> => {
      const sweeper = startRetentionSweeper({
        name: 'test',
        pool,
        logger: silentLogger(),
        retentionMs: 168 * HOUR_MS,
        intervalMs: 3_600_000,
        batchSize: 2,
        deleteExpired,
      });
      try {
        return await sweeper.sweep();
      } finally {
        await sweeper.stop();
      }
    };
    expect(await sweep(deleteProcessedEvents)).toBe(5);
    expect(await sweep(deleteSentMail)).toBe(3);
    expect(await labels(pool)).toEqual({ processed: [6], mail: ['sent recently', 'never sent'] });
  });

  it('when the notifier runs with its retention variables, then its own sweepers bound both tables', async () => {
    await insertProcessed(pool, 1, '30 hours');
    await insertProcessed(pool, 2, '1 hour');
    await insertMail(pool, 'sent', '1 minute');
    await insertMail(pool, 'never sent', null);
    const bus = createInProcessEventBus();
    const notifier = await runNotifierService({
      config: loadConfig({
        DATABASE_URL: db.url,
        AMQP_URL: testServers.amqpUrl,
        SMTP_URL: 'smtp://127.0.0.1:9',
        NOTIFIER_PORT: '0',
        NOTIFIER_QUEUE: 'retention-test',
        NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS: '24',
        NOTIFIER_MAIL_RETENTION_HOURS: '0',
        NOTIFIER_SWEEP_MS: '100',
        // The unsent e-mail is not this test's to send.
        NOTIFIER_MAIL_POLL_MS: '3600000',
      }),
      logger: silentLogger(),
      given: { bus },
    });
    try {
      await eventually(
        async () => {
          const now = await labels(pool);
          return now.processed.length === 1 && now.mail.length === 1 ? now : undefined;
        },
        10_000,
        'the sweepers to run',
      );
      expect(await labels(pool)).toEqual({ processed: [2], mail: ['never sent'] });
    } finally {
      await notifier.stop();
      await bus.close();
    }
  });
});
