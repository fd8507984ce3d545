import type pg from 'pg';
import { createPool, migrate } from '@platform/db';
import { generateWebhookSecret, type TestNetwork } from '@platform/webhooks';
import { userMigrations } from '@platform/user/migrations';
import { BALANCE_CHANGED, createAmqpEventBus, type BalanceChanged, type EventBus } from '@platform/events';
import {
  anAccount,
  eventually,
  silentLogger,
  startSmtpCapture,
  testServers,
  uniqueId,
  type SmtpCapture,
  type TestAccount,
  deleteTopology,
  aBalanceChange,
  createPrivateDatabase,
  startWebhookReceiver,
  type PrivateDatabase,
  type WebhookReceiver,
} from '@platform/testing';
import { loadConfig, type NotifierConfig } from '../src/config';
import { runNotifierService, type NotifierService } from '../src/service';
import type { Adapters } from '@platform/infrastructure';

export const SETTINGS_URL = 'https://accounts.example.test/user-service/notification-settings';

/** Per test file: its own exchange and queues on the shared RabbitMQ, a pool, an SMTP capture. */
export interface Harness {
  pool: pg.Pool;
  smtp: SmtpCapture;
  names: { exchange: string; queue: string; deadLetterQueue: string };
  /** Publishes on the test exchange with the real AMQP bus. */
  publisher: EventBus;
  config(overrides?: NodeJS.ProcessEnv): NotifierConfig;
  /** `clock`: what the webhook dispatcher reads as the time (a test's moved clock). */
  start(options?: { env?: NodeJS.ProcessEnv; given?: Partial<Adapters>; clock?: () => number }): Promise<NotifierService>;
  /** Stops every notifier this harness started that still runs (a restart, with start()). */
  stopAll(): Promise<void>;
  account(credits?: Record<number, number>): Promise<TestAccount>;
  publish(event: BalanceChanged): Promise<void>;
  /** Waits until the notifier has handled these events and sent every e-mail they queued. */
  settled(account: TestAccount, events: BalanceChanged[]): Promise<void>;
  /** Publishes the events in order, then waits until they are `settled`. */
  deliver(account: TestAccount, events: BalanceChanged[]): Promise<void>;
  mailsTo(account: TestAccount): SmtpCapture['messages'];
  close(): Promise<void>;
}

let clock = Date.now();

/** A balance.changed event; occurredAt increases from one call to the next. */
/** The changes of a pool whose credits go along `path` (20, 15, 9: 20 → 15, then 15 → 9), in order. */
export function changesAlong(account: { id: number }, path: number[], overrides: Partial<BalanceChanged> = {}): BalanceChanged[] {
  return path.slice(1).map((credits, index) => aChange(account, path[index] as number, credits, overrides));
}

export function aChange(
  account: { id: number },
  previousCredits: number,
  credits: number,
  overrides: Partial<BalanceChanged> = {},
): BalanceChanged {
  clock += 1000;
  return aBalanceChange({
    accountId: account.id,
    previousCredits,
    credits,
    cause: credits < previousCredits ? 'usage' : 'top-up',
    occurredAt: new Date(clock).toISOString(),
    ...overrides,
  });
}

/** Sets the account's webhook (and its e-mail alerts) as the settings API stores them; answers the secret. */
export async function withWebhook(pool: pg.Pool, account: TestAccount, url: string, emails = true): Promise<string> {
  const secret = generateWebhookSecret();
  await pool.query(
    `INSERT INTO notification_settings (account_id, low_balance_enabled, zero_balance_enabled, webhook_url, webhook_secret)
     VALUES ($1, $2, $2, $3, $4)`,
    [account.id, emails, `${url}?account=${account.id}`, secret],
  );
  return secret;
}

export interface HarnessOptions {
  /** A database of the test's own (default: the shared test database). */
  databaseUrl?: string;
  /** The CA of a test's webhook receiver, trusted by the notifiers started here. */
  webhookCa?: string;
  /** The receiver's test network: deliveries go to it with the address rules on. */
  webhookNetwork?: TestNetwork;
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const databaseUrl = options.databaseUrl ?? testServers.databaseUrl;
  const pool = createPool({ connectionString: databaseUrl, logger: silentLogger() });
  await migrate(pool, [userMigrations], silentLogger());
  const smtp = await startSmtpCapture();
  const exchange = uniqueId('test.notifier.');
  const names = { exchange, queue: `${exchange}.balance-changed`, deadLetterQueue: `${exchange}.balance-changed.dead` };
  const publisher = createAmqpEventBus({ url: testServers.amqpUrl, exchange, logger: silentLogger() });
  const services: NotifierService[] = [];

  const config = (overrides: NodeJS.ProcessEnv = {}): NotifierConfig =>
    loadConfig({
      DATABASE_URL: databaseUrl,
      AMQP_URL: testServers.amqpUrl,
      SMTP_URL: smtp.url,
      NOTIFIER_PORT: '0',
      SETTINGS_URL,
      MAIL_FROM: 'Account alerts <alerts@example.test>',
      BALANCE_EXCHANGE: names.exchange,
      NOTIFIER_QUEUE: names.queue,
      NOTIFIER_DEAD_LETTER_QUEUE: names.deadLetterQueue,
      NOTIFIER_MAIL_POLL_MS: '100',
      NOTIFIER_MAIL_RETRY_INITIAL_MS: '100',
      NOTIFIER_MAIL_RETRY_MAX_MS: '500',
      ...overrides,
    });

  const unsent = async (accountId: number): Promise<number> =>
    Number(
      (
        await pool.query<{ n: string }>('SELECT count(*) AS n FROM notifier_mail_outbox WHERE account_id = $1 AND sent_at IS NULL', [
          accountId,
        ])
      ).rows[0]?.n,
    );

  const settled: Harness['settled'] = async (account, events) => {
    const ids = events.map((event) => event.id);
    await eventually(
      async () => {
        const handled = await pool.query('SELECT 1 FROM notifier_processed_events WHERE event_id = ANY($1::uuid[])', [ids]);
        return handled.rowCount === ids.length && (await unsent(account.id)) === 0 ? true : undefined;
      },
      15_000,
      `events of account ${account.id} handled and mailed`,
    );
  };
  return {
    pool,
    smtp,
    names,
    publisher,
    config,
    async start({ env, given, clock } = {}) {
      const service = await runNotifierService({
        config: config(env),
        logger: silentLogger(),
        ...(given ? { given } : {}),
        ...(clock ? { webhookClock: clock } : {}),
        ...(options.webhookCa === undefined ? {} : { webhookCa: options.webhookCa }),
        ...(options.webhookNetwork === undefined ? {} : { webhookNetwork: options.webhookNetwork }),
      });
      services.push(service);
      await service.consuming;
      return service;
    },
    async stopAll() {
      for (const service of services.splice(0)) await service.stop();
    },
    account: (credits = { 1: 100 }) => anAccount(pool, { credits }),
    publish: (event) => publisher.publish(BALANCE_CHANGED, event),
    settled,
    async deliver(account, events) {
      for (const event of events) await publisher.publish(BALANCE_CHANGED, event);
      await settled(account, events);
    },
    mailsTo: (account) => smtp.messages.filter((message) => message.to !== undefined && JSON.stringify(message.to).includes(account.email)),
    async close() {
      for (const service of services) await service.stop();
      await publisher.close();
      await smtp.close();
      await deleteTopology(testServers.amqpUrl, {
        queues: [names.queue, names.deadLetterQueue],
        exchanges: [names.exchange, `${names.exchange}.dlx`],
      });
      await pool.end();
    },
  };
}

/** A webhook test file's world: a database of its own, an HTTPS receiver, and the harness trusting it. */
export interface WebhookWorld {
  database: PrivateDatabase;
  receiver: WebhookReceiver;
  harness: Harness;
}

/**
 * Starts a webhook test file's world before its tests and takes it down after them (its members
 * are set once beforeAll has run). `names`: host names the receiver's network resolves (see
 * WebhookReceiver.network).
 */
export function useWebhookWorld(label: string, names?: Record<string, string[]>): WebhookWorld {
  const world = {} as WebhookWorld;
  beforeAll(async () => {
    world.database = await createPrivateDatabase(label);
    world.receiver = await startWebhookReceiver();
    world.harness = await createHarness({
      databaseUrl: world.database.url,
      webhookCa: world.receiver.ca,
      webhookNetwork: world.receiver.network(names),
    });
  }, 60_000);
  afterAll(async () => {
    await world.harness?.close();
    await world.receiver?.close();
    await world.database?.drop();
  });
  return world;
}

/** A harness and one notifier for the whole file: started before its tests (members set then), closed after them. */
export function useStartedHarness(): Harness & { service: NotifierService } {
  const harness = {} as Harness & { service: NotifierService };
  beforeAll(async () => {
    Object.assign(harness, await createHarness());
    harness.service = await harness.start();
  });
  afterAll(async () => {
    await harness.close?.();
  });
  return harness;
}
