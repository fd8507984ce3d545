/**
 * The alerting path end to end, as the metering and fault tests run it: the user service (its
 * test harness, its outbox relay publishing to RabbitMQ) and notifiers on one private database,
 * an exchange, queues and a key prefix of the test's own, and an SMTP capture. `stop()` takes it
 * all down: the notifiers, the keys, the user service, the capture, the topology, the database.
 */
import type { Logger } from '@platform/runtime';
import { eventually, silentLogger, startWebhookReceiver, type SmtpCapture, type WebhookReceiver } from '@platform/testing';
import { startPlatformResources } from '@platform/testing/platform';
import { loadConfig as loadNotifierConfig, runNotifierService, type NotifierService } from '@platform/notifier';
import { startHarness, testConfig, type Harness } from '@platform/user/testing';

export interface AlertingOptions {
  /** Names the database, the exchange and the key prefix. */
  name: string;
  /** The user service's AMQP_URL (e.g. through a TCP proxy); default the shared broker. */
  userAmqpUrl?: string;
  /** The notifiers' AMQP_URL; default the shared broker. */
  notifierAmqpUrl?: string;
  /** The user service's variables over these defaults: the outbox polled every 100 ms, retried within 100–500 ms. */
  userEnv?: Record<string, string>;
  /** Every notifier's variables over these defaults: its mail outbox polled every 100 ms. */
  notifierEnv?: Record<string, string>;
  /** The user service's logger (default silent). */
  userLogger?: Logger;
  /** Start a webhook receiver (`receiver`), reached by the user service and the notifiers through its test network. */
  webhooks?: boolean;
  /** How many notifiers to start with (default 1). */
  notifiers?: number;
}

export interface Alerting {
  databaseUrl: string;
  smtp: SmtpCapture;
  /** The webhook receiver (with `webhooks`). */
  receiver: WebhookReceiver | undefined;
  user: Harness;
  /** The notifiers running now, oldest first. */
  notifiers: NotifierService[];
  exchange: string;
  queue: string;
  /** Starts another notifier (a replica, or a restart after stopping one), ready once consuming. */
  startNotifier(): Promise<NotifierService>;
  /** The e-mails sent to `email`, in the order the capture got them. */
  mailsTo(email: string): SmtpCapture['messages'];
  /** Waits until every balance change of the accounts is published and handled by a notifier, and every e-mail it queued is sent. */
  settled(accountIds: number[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startAlerting(options: AlertingOptions): Promise<Alerting> {
  const resources = await startPlatformResources({ name: options.name, smtp: true });
  const { databaseUrl, exchange, queue, prefix } = resources;
  const smtp = resources.smtp as SmtpCapture;
  const notifiers: NotifierService[] = [];
  const stop = async (): Promise<void> => {
    for (const notifier of notifiers.splice(0)) await notifier.stop().catch(() => undefined);
    await resources.stop();
  };
  try {
    let receiver: WebhookReceiver | undefined;
    if (options.webhooks === true) {
      const started = await startWebhookReceiver();
      resources.onStop(() => started.close());
      receiver = started;
    }
    const seams = receiver === undefined ? {} : { webhookCa: receiver.ca, webhookNetwork: receiver.network() };
    const user = await startHarness({
      eventBus: 'amqp',
      ...(options.userLogger === undefined ? {} : { logger: options.userLogger }),
      ...seams,
      config: testConfig({
        DATABASE_URL: databaseUrl,
        AMQP_URL: options.userAmqpUrl ?? (resources.env.AMQP_URL as string),
        BALANCE_EXCHANGE: exchange,
        REDIS_KEY_PREFIX: prefix,
        OUTBOX_POLL_MS: '100',
        OUTBOX_RETRY_INITIAL_MS: '100',
        OUTBOX_RETRY_MAX_MS: '500',
        ...options.userEnv,
      }),
    });
    resources.onStop(() => user.stop());
    const startNotifier = async (): Promise<NotifierService> => {
      const notifier = await runNotifierService({
        config: loadNotifierConfig({
          DATABASE_URL: databaseUrl,
          AMQP_URL: options.notifierAmqpUrl ?? resources.env.AMQP_URL,
          SMTP_URL: smtp.url,
          NOTIFIER_PORT: '0',
          // Where the e-mails' links point, as in a deployment (no test follows them).
          USER_URL: user.service.url,
          BALANCE_EXCHANGE: exchange,
          NOTIFIER_QUEUE: queue,
          NOTIFIER_DEAD_LETTER_QUEUE: `${queue}.dead`,
          NOTIFIER_MAIL_POLL_MS: '100',
          ...options.notifierEnv,
        }),
        logger: silentLogger(),
        ...seams,
      });
      notifiers.push(notifier);
      await notifier.consuming;
      return notifier;
    };
    for (let index = 0; index < (options.notifiers ?? 1); index += 1) await startNotifier();
    return {
      databaseUrl,
      smtp,
      receiver,
      user,
      notifiers,
      exchange,
      queue,
      startNotifier,
      mailsTo: (email) => smtp.messages.filter((mail) => JSON.stringify(mail.to ?? null).includes(email)),
      async settled(accountIds, timeoutMs = 20_000) {
        const left = async (): Promise<number | undefined> =>
          (
            await user.pool.query<{ n: number }>(
              `SELECT (SELECT count(*)::int FROM outbox_event_list o WHERE (o.payload->>'accountId')::int = ANY($1::int[])
                        AND (o.published_at IS NULL OR NOT EXISTS (SELECT 1 FROM notifier_processed_events p WHERE p.event_id = o.id)))
                    + (SELECT count(*)::int FROM notifier_mail_outbox WHERE account_id = ANY($1::int[]) AND sent_at IS NULL) AS n`,
              [accountIds],
            )
          ).rows[0]?.n;
        await eventually(
          async () => ((await left()) === 0 ? true : undefined),
          timeoutMs,
          `the events of ${accountIds.join(', ')} handled and mailed`,
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
