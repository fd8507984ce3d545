/**
 * The notifier killed with SIGKILL in the middle of a batch of balance events while the SMTP
 * server refuses mail, then started again; the SMTP server accepts again a while later. No
 * alert is lost and none is sent twice. The notifier runs as its own process (`pnpm
 * start:notifier`) on a database of its own (its mail outbox sends every unsent row it holds).
 */
import type pg from 'pg';
import { BALANCE_CHANGED, createAmqpEventBus, type EventBus } from '@platform/events';
import {
  aBalanceChange,
  anAccount,
  createPrivateDatabase,
  deleteTopology,
  eventually,
  readyBody,
  silentLogger,
  startSmtpCapture,
  testServers,
  uniqueId,
  userTablesPool,
  type PrivateDatabase,
  type SmtpCapture,
  type TestAccount,
} from '@platform/testing';
import { REPOSITORY_ROOT, startChildProcess, type ChildProcessHandle } from '@platform/testing/platform';
import { verifyLedgerAfterAll } from './ledger-check';

const ACCOUNTS = 100;

describe('notifier killed mid-batch while SMTP refuses for a while', () => {
  let db: PrivateDatabase;
  let pool: pg.Pool;
  let smtp: SmtpCapture;
  let publisher: EventBus;
  const running: ChildProcessHandle[] = [];
  const exchange = uniqueId('test.notifierkill.');
  const queue = `${exchange}.notifier`;

  beforeAll(async () => {
    db = await createPrivateDatabase('notifierkill');
    pool = await userTablesPool(db.url);
    smtp = await startSmtpCapture();
    publisher = createAmqpEventBus({ url: testServers.amqpUrl, exchange, logger: silentLogger() });
  }, 60_000);

  // Before the afterAll below drops the database: whatever the faults did, the ledger is exact.
  verifyLedgerAfterAll(() => db?.url);

  afterAll(async () => {
    for (const child of running) await child.kill();
    await publisher?.close();
    await smtp?.close();
    await deleteTopology(testServers.amqpUrl, { queues: [queue, `${queue}.dead`], exchanges: [exchange, `${exchange}.dlx`] });
    await pool?.end();
    await db?.drop();
  });

  const startNotifier = async (): Promise<ChildProcessHandle> => {
    const child = await startChildProcess('services/notifier/src/main.ts', {
      cwd: REPOSITORY_ROOT,
      env: {
        DATABASE_URL: db.url,
        AMQP_URL: testServers.amqpUrl,
        SMTP_URL: smtp.url,
        NOTIFIER_PORT: '0',
        BALANCE_EXCHANGE: exchange,
        NOTIFIER_QUEUE: queue,
        // One message at a time, so that the batch is still being worked through when the kill comes.
        NOTIFIER_PREFETCH: '1',
        NOTIFIER_MAIL_POLL_MS: '100',
        NOTIFIER_MAIL_RETRY_INITIAL_MS: '100',
        NOTIFIER_MAIL_RETRY_MAX_MS: '300',
        // The e-mail the killed notifier had claimed goes to the next one after this (default 60 s).
        NOTIFIER_MAIL_LEASE_MS: '3000',
        LOG_LEVEL: 'info',
      },
      ready: /"message":"listening"/,
    });
    running.push(child);
    const url = /"message":"listening"[^\n]*"url":"(http:\/\/[^"]+)"/.exec(child.output())?.[1] as string;
    // Ready once its consumer is attached (queue declared and bound).
    await readyBody(url);
    return child;
  };
  const count = async (sql: string): Promise<number> => Number((await pool.query<{ n: string }>(sql)).rows[0]?.n);

  test('then every crossing is mailed exactly once after SMTP accepts again', async () => {
    const accounts: TestAccount[] = [];
    for (let index = 0; index < ACCOUNTS; index += 1) accounts.push(await anAccount(pool, { credits: { 1: 5 }, ledger: true }));
    smtp.refuse(true);
    const first = await startNotifier();
    // Each account's pool crosses the default threshold (10): one low-balance alert each.
    await Promise.all(
      accounts.map((account) =>
        publisher.publish(BALANCE_CHANGED, aBalanceChange({ accountId: account.id, previousCredits: 20, credits: 5 })),
      ),
    );

    await eventually(async () => ((await count('SELECT count(*) AS n FROM notifier_processed_events')) >= 10 ? true : undefined), 20_000);
    await first.kill();
    const handledAtKill = await count('SELECT count(*) AS n FROM notifier_processed_events');
    expect(handledAtKill).toBeLessThan(ACCOUNTS);
    expect(smtp.messages).toHaveLength(0);

    await startNotifier();
    await eventually(
      async () => ((await count('SELECT count(*) AS n FROM notifier_processed_events')) === ACCOUNTS ? true : undefined),
      30_000,
      'every event handled after the restart',
    );
    await eventually(() => (smtp.refused() > 0 ? true : undefined)); // still refusing: sends are being retried
    smtp.refuse(false);

    await smtp.waitFor(ACCOUNTS, 30_000);
    await eventually(
      async () => ((await count('SELECT count(*) AS n FROM notifier_mail_outbox WHERE sent_at IS NULL')) === 0 ? true : undefined),
      15_000,
    );
    const recipients = smtp.messages.map((mail) => JSON.stringify(mail.to ?? null));
    for (const account of accounts)
      expect({ account: account.email, mails: recipients.filter((to) => to.includes(account.email)).length }).toEqual({
        account: account.email,
        mails: 1,
      });
    expect(smtp.messages).toHaveLength(ACCOUNTS);
  }, 120_000);
});
