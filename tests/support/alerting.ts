/**
 * The alerting path end to end, as the metering and fault tests run it: the platform's user
 * service (its outbox relay publishing to RabbitMQ) and notifiers (`startPlatform`, mode real) on
 * one private database, an exchange, queues and a key prefix of the test's own, and an SMTP
 * capture. `stop()` takes it all down: the notifiers, the user service, the keys, the capture,
 * the topology, the database, then the webhook receiver.
 */
import type { Pool } from 'pg';
import request from 'supertest';
import type { Logger, RunningService } from '@platform/runtime';
import { eventually, silentLogger, startWebhookReceiver, type SmtpCapture, type WebhookReceiver } from '@platform/testing';
import { startPlatform, type Platform, type WebhookSeams } from '@platform/testing/platform';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET } from '@platform/user/testing';

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
  /** How many notifiers to start with (default 1; at least 1). */
  notifiers?: number;
}

/** The user service as the tests reach it (the admin token and service JWT secret of `@platform/user/testing`). */
export interface AlertingUser {
  service: { url: string };
  http: ReturnType<typeof request>;
  /** The platform's database. */
  pool: Pool;
  account: Platform['account'];
  token: Platform['token'];
}

export interface Alerting {
  databaseUrl: string;
  smtp: SmtpCapture;
  /** The webhook receiver (with `webhooks`). */
  receiver: WebhookReceiver | undefined;
  user: AlertingUser;
  /** The notifiers running now, oldest first. */
  notifiers: RunningService[];
  exchange: string;
  queue: string;
  /** Starts another notifier (a replica, or a restart after stopping one), ready once consuming. */
  startNotifier(): Promise<RunningService>;
  /** The e-mails sent to `email`, in the order the capture got them. */
  mailsTo(email: string): SmtpCapture['messages'];
  /** Waits until every balance change of the accounts is published and handled by a notifier, and every e-mail it queued is sent. */
  settled(accountIds: number[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startAlerting(options: AlertingOptions): Promise<Alerting> {
  let receiver: WebhookReceiver | undefined;
  if (options.webhooks === true) receiver = await startWebhookReceiver();
  const seams: WebhookSeams = receiver === undefined ? {} : { webhookCa: receiver.ca, webhookNetwork: receiver.network() };
  const notifierCount = options.notifiers ?? 1;
  let platform: Platform;
  try {
    platform = await startPlatform({
      mode: 'real',
      name: options.name,
      services: ['user', 'notifier'],
      env: { ADMIN_TOKEN, SERVICE_JWT_SECRET },
      serviceEnv: {
        user: {
          ...(options.userAmqpUrl === undefined ? {} : { AMQP_URL: options.userAmqpUrl }),
          OUTBOX_POLL_MS: '100',
          OUTBOX_RETRY_INITIAL_MS: '100',
          OUTBOX_RETRY_MAX_MS: '500',
          ...options.userEnv,
        },
        notifier: {
          ...(options.notifierAmqpUrl === undefined ? {} : { AMQP_URL: options.notifierAmqpUrl }),
          NOTIFIER_MAIL_POLL_MS: '100',
          ...options.notifierEnv,
        },
      },
      logger: (service) => (service === 'user' ? (options.userLogger ?? silentLogger()) : silentLogger()),
      seams: { user: seams, notifier: seams },
    });
  } catch (error) {
    await receiver?.close();
    throw error;
  }
  const { databaseUrl, exchange, queue, pool } = platform;
  const smtp = platform.smtp as SmtpCapture;
  const notifiers: RunningService[] = platform.services.notifier === undefined ? [] : [platform.services.notifier];
  const stop = async (): Promise<void> => {
    await platform.stop();
    await receiver?.close();
  };
  try {
    const startNotifier = async (): Promise<RunningService> => {
      const notifier = await platform.anotherInstance('notifier', {});
      notifiers.push(notifier);
      return notifier;
    };
    while (notifiers.length < notifierCount) await startNotifier();
    const userUrl = platform.url('user');
    const user: AlertingUser = {
      service: { url: userUrl },
      http: request(userUrl),
      pool,
      account: (credits, extra) => platform.account(credits, extra),
      token: (account, ttlSeconds) => platform.token(account, ttlSeconds),
    };
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
            await pool.query<{ n: number }>(
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
