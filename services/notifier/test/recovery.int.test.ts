import request from 'supertest';
import { createPool } from '@platform/db';
import { createAmqpEventBus, type EventBus } from '@platform/events';
import { createSmtpMailer, type Mailer } from '@platform/infrastructure';
import { eventually, freePort, silentLogger, startTcpProxy, testServers } from '@platform/testing';
import { aChange, createHarness, type Harness } from './harness';

const AMQP_PORT = Number(new URL(testServers.amqpUrl).port || 5672);
const POSTGRES_PORT = Number(new URL(testServers.databaseUrl).port || 5432);

async function outboxRow(
  harness: Harness,
  accountId: number,
): Promise<{ attempts: number; sent: boolean; lastError: string | null } | undefined> {
  const result = await harness.pool.query<{ attempts: number; sent_at: Date | null; last_error: string | null }>(
    'SELECT attempts, sent_at, last_error FROM notifier_mail_outbox WHERE account_id = $1',
    [accountId],
  );
  const row = result.rows[0];
  return row ? { attempts: row.attempts, sent: row.sent_at !== null, lastError: row.last_error } : undefined;
}

describe('notifier: exactly one e-mail under crashes, redelivery and SMTP outages', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await createHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('when the notifier dies after its commit but before the ack, then the redelivered message sends no second e-mail', async () => {
    const account = await harness.account();
    const crossing = aChange(account, 20, 5);
    const proxy = await startTcpProxy(AMQP_PORT);
    const dying = createAmqpEventBus({
      url: proxy.url(testServers.amqpUrl),
      exchange: harness.names.exchange,
      logger: silentLogger(),
      reconnectInitialMs: 60_000,
      drainTimeoutMs: 100,
    });
    // The handler commits (e-mail queued), then the process "crashes": its connection drops before the ack.
    const crashAfterCommit: EventBus = {
      ...dying,
      consume: (queue, bindingKey, handler, options) =>
        dying.consume(
          queue,
          bindingKey,
          async (event, delivery) => {
            await handler(event, delivery);
            if (event.id !== crossing.id) return;
            proxy.cut();
            await new Promise(() => undefined);
          },
          options,
        ),
    };
    const first = await harness.start({ given: { bus: crashAfterCommit } });
    await harness.publish(crossing);
    await eventually(async () =>
      (await harness.pool.query('SELECT 1 FROM notifier_processed_events WHERE event_id = $1', [crossing.id])).rowCount === 1
        ? true
        : undefined,
    );
    await first.stop();
    await dying.close();
    await proxy.close();

    const second = await harness.start();
    await eventually(
      async () => {
        const metrics = await request(second.url).get('/metrics');
        return /notifier_events_total\{result="duplicate"[^}]*\} [1-9]/.test(metrics.text) ? true : undefined;
      },
      15_000,
      'the redelivered message',
    );
    await harness.settled(account, [crossing]);
    expect(harness.mailsTo(account)).toHaveLength(1);
    await second.stop();
  });

  it('when SMTP is down, then the e-mail waits in the outbox, survives a restart and is sent once SMTP is back', async () => {
    const account = await harness.account();
    const crossing = aChange(account, 15, 0);

    // A loopback port nobody listens on: connections are refused, as when the SMTP server is down.
    const first = await harness.start({ env: { SMTP_URL: `smtp://127.0.0.1:${await freePort()}` } });
    await harness.publish(crossing);
    await eventually(async () => {
      const row = await outboxRow(harness, account.id);
      return row && row.attempts >= 2 ? row : undefined;
    });
    const failed = await outboxRow(harness, account.id);
    expect(failed).toMatchObject({ sent: false });
    expect(failed?.lastError).toEqual(expect.any(String));
    await first.stop();
    expect(harness.mailsTo(account)).toHaveLength(0);

    const second = await harness.start();
    await harness.settled(account, [crossing]);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual(['Zero balance alert: WHOIS API has no credits left']);
    expect(await outboxRow(harness, account.id)).toMatchObject({ sent: true });
    await second.stop();
  });

  it('when Postgres is away as the SMTP server accepts an e-mail, then it is marked sent once back and never sent again', async () => {
    const account = await harness.account();
    const crossing = aChange(account, 15, 0);
    // The notifier's Postgres behind a proxy, cut the moment the SMTP server has accepted the
    // e-mail: its mark as sent fails, as when pgbouncer is killed or the primary fails over.
    const proxy = await startTcpProxy(POSTGRES_PORT);
    const pool = createPool({ connectionString: proxy.url(testServers.databaseUrl), logger: silentLogger() });
    const smtp = createSmtpMailer(harness.smtp.url);
    let cut = false;
    const mailer: Mailer = {
      send: async (mail) => {
        await smtp.send(mail);
        if (mail.to !== account.email || cut) return;
        cut = true;
        proxy.cut();
      },
      close: () => smtp.close(),
    };
    const service = await harness.start({ env: { NOTIFIER_MAIL_LEASE_MS: '1000' }, given: { pool, mailer } });
    await harness.publish(crossing);
    await eventually(() => (harness.mailsTo(account).length > 0 ? true : undefined));
    // Postgres comes back only once the e-mail's lease has run out: then it is due again, unless
    // the dispatcher still holds it to mark it sent.
    await eventually(async () =>
      (await harness.pool.query('SELECT 1 FROM notifier_mail_outbox WHERE account_id = $1 AND next_attempt_at <= now()', [account.id]))
        .rowCount === 1
        ? true
        : undefined,
    );
    proxy.restore();

    await eventually(async () => ((await outboxRow(harness, account.id))?.sent ? true : undefined), 15_000, 'the e-mail marked sent');
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual(['Zero balance alert: WHOIS API has no credits left']);
    expect(await outboxRow(harness, account.id)).toMatchObject({ attempts: 1, sent: true });
    await service.stop();
    await pool.end();
    await proxy.close();
  });

  it('when events are published while the notifier is stopped, then a restarted notifier handles them from the durable queue', async () => {
    const first = await harness.start();
    await first.stop();
    const account = await harness.account();
    const events = [aChange(account, 30, 8), aChange(account, 8, 0)];
    for (const event of events) await harness.publish(event);

    const second = await harness.start();
    await harness.settled(account, events);
    expect(harness.mailsTo(account)).toHaveLength(2);
    await second.stop();
  });

  it('when RabbitMQ drops the connection, then the notifier is not ready, reconnects and goes on consuming', async () => {
    const proxy = await startTcpProxy(AMQP_PORT);
    const service = await harness.start({ env: { AMQP_URL: proxy.url(testServers.amqpUrl) } });
    await request(service.url).get('/health/ready').expect(200);

    proxy.cut();
    await eventually(async () => ((await request(service.url).get('/health/ready')).status === 503 ? true : undefined));
    proxy.restore();
    await eventually(async () => ((await request(service.url).get('/health/ready')).status === 200 ? true : undefined), 15_000);

    const account = await harness.account();
    const events = [aChange(account, 10, 9)];
    await harness.publish(events[0]!);
    await harness.settled(account, events);
    expect(harness.mailsTo(account)).toHaveLength(1);
    await service.stop();
    await proxy.close();
  });
});
