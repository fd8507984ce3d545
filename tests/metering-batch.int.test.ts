/**
 * Alerts stay exact when debits are batched (CONTRACT §6): one batch that takes a pool from
 * above the low threshold to 0 yields the low-balance alert and then the zero-balance alert,
 * one e-mail each. User service (batches wait up to 1 s, so that concurrent calls land in one)
 * → outbox → RabbitMQ → notifier → SMTP, on a database of its own.
 */
import {
  createPrivateDatabase,
  deleteTopology,
  eventually,
  silentLogger,
  startSmtpCapture,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type SmtpCapture,
} from '@platform/testing';
import { loadConfig as loadNotifierConfig, runNotifierService, type NotifierService } from '@platform/notifier';
import { postUsage, startHarness, testConfig, usageBody, type Harness } from '@platform/user/testing';

describe('metering in batches: both alerts of one batch, in order, once each', () => {
  let db: PrivateDatabase;
  let smtp: SmtpCapture;
  let user: Harness;
  let notifier: NotifierService;
  const exchange = uniqueId('test.metering-batch.');
  const queue = `${exchange}.balance-changed`;
  const deadLetterQueue = `${queue}.dead`;

  beforeAll(async () => {
    db = await createPrivateDatabase('metering_batch');
    smtp = await startSmtpCapture();
    user = await startHarness({
      eventBus: 'amqp',
      config: testConfig({
        DATABASE_URL: db.url,
        REDIS_KEY_PREFIX: `${exchange}:`,
        BALANCE_EXCHANGE: exchange,
        OUTBOX_POLL_MS: '100',
        USAGE_BATCH_MAX_WAIT_MS: '1000',
      }),
    });
    notifier = await runNotifierService({
      config: loadNotifierConfig({
        DATABASE_URL: db.url,
        AMQP_URL: testServers.amqpUrl,
        SMTP_URL: smtp.url,
        NOTIFIER_PORT: '0',
        USER_URL: user.service.url,
        MAIL_FROM: 'Account alerts <alerts@example.test>',
        BALANCE_EXCHANGE: exchange,
        NOTIFIER_QUEUE: queue,
        NOTIFIER_DEAD_LETTER_QUEUE: deadLetterQueue,
        NOTIFIER_MAIL_POLL_MS: '100',
      }),
      logger: silentLogger(),
    });
    await notifier.consuming;
  });

  afterAll(async () => {
    await notifier?.stop();
    await user?.stop();
    await smtp?.close();
    await deleteTopology(testServers.amqpUrl, { queues: [queue, deadLetterQueue], exchanges: [exchange, `${exchange}.dlx`] });
    await db?.drop();
  });

  it('when 12 concurrent calls empty a pool of 12 in one batch, then a low alert and then a zero alert are mailed, and nothing more', async () => {
    const account = await user.account({ 1: 12 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => postUsage(user.http, usageBody(account.apiKey))));
    expect(answers.map((res) => res.status)).toEqual(Array(12).fill(200));
    // One batch: its run of debits down to 1, then the last debit to 0.
    const events = await user.pool.query<{ id: string; payload: { previousCredits: number; credits: number } }>(
      "SELECT id, payload FROM outbox_event_list WHERE payload->>'accountId' = $1 ORDER BY seq, position",
      [String(account.id)],
    );
    expect(events.rows.map((row) => [row.payload.previousCredits, row.payload.credits])).toEqual([
      [12, 1],
      [1, 0],
    ]);

    const mails = () => smtp.messages.filter((mail) => JSON.stringify(mail.to ?? null).includes(account.email));
    await eventually(() => (mails().length >= 2 ? true : undefined), 20_000, 'two alerts');
    // Every event handled (redelivery included) before counting: still two e-mails.
    await eventually(async () => {
      const handled = await user.pool.query('SELECT count(*)::int AS n FROM notifier_processed_events WHERE event_id = ANY($1::uuid[])', [
        events.rows.map((row) => row.id),
      ]);
      return handled.rows[0].n === 2 ? true : undefined;
    }, 20_000);
    expect(mails().map((mail) => mail.subject)).toEqual([
      'Low balance alert: WHOIS API has 1 credit left',
      'Zero balance alert: WHOIS API has no credits left',
    ]);
  });
});
