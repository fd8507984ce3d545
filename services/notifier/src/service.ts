import { serve, type Logger, type RunningService } from '@platform/runtime';
import { openInfrastructure, serveOn, type Adapters } from '@platform/infrastructure';
import { migrate, startRetentionSweeper, type RetentionSweeper } from '@platform/db';
import { BALANCE_CHANGED, type Subscription } from '@platform/events';
import { createApp } from './app';
import type { NotifierConfig } from './config';
import { createDeps, NOTIFIER_NEEDS, type NotifierDeps, type NotifierInfrastructure } from './deps';
import { createBalanceChangedHandler } from './entry-points/balance-changed-handler';
import { startMailDispatcher } from './entry-points/mail-dispatcher';
import { startWebhookDispatcher } from './entry-points/webhook-dispatcher';
import { notifierMigrations } from './migrations';
import { deleteProcessedEvents, deleteSentMail } from './store/retention';

const HOUR_MS = 60 * 60 * 1000;

/** The sweepers that keep the notifier's tables bounded: handled event ids and sent e-mails. */
function startSweepers(deps: NotifierDeps, config: NotifierConfig): RetentionSweeper[] {
  const common = { pool: deps.pool, logger: deps.logger, intervalMs: config.sweepMs };
  return [
    startRetentionSweeper({
      ...common,
      name: 'processed event',
      retentionMs: config.processedEventRetentionHours * HOUR_MS,
      deleteExpired: deleteProcessedEvents,
    }),
    startRetentionSweeper({
      ...common,
      name: 'sent mail',
      retentionMs: config.mailRetentionHours * HOUR_MS,
      deleteExpired: deleteSentMail,
    }),
  ];
}

export interface NotifierService extends RunningService {
  /** Resolves once the consumer is attached to its queue (it waits for RabbitMQ if it is down). */
  consuming: Promise<void>;
}

export interface StartNotifierOptions {
  config: NotifierConfig;
  logger: Logger;
  /** Ready adapters (openInfrastructure); the service leaves them open at stop(). */
  infrastructure: NotifierInfrastructure;
  /** Extra CA certificates (PEM) the webhook sender trusts: tests' self-signed receivers. */
  webhookCa?: string;
}

/**
 * Starts the notifier: migrations, the mail dispatcher (which also sends what an earlier run
 * left unsent), the balance.changed consumer, the retention sweepers and the operations HTTP
 * listener. The user service's tables (accounts, notification_settings, products) must exist.
 */
export async function startNotifierService({ config, logger, infrastructure, webhookCa }: StartNotifierOptions): Promise<NotifierService> {
  const deps = createDeps(logger, infrastructure);
  // The consumer starts after the app that reports it.
  const consuming: { subscription?: Subscription } = {};
  await migrate(infrastructure.directPool, [notifierMigrations], logger);
  const { app, health, metrics } = createApp(
    deps,
    {
      isConsuming: () => consuming.subscription?.isActive() ?? false,
      deadLetterDepth: () => consuming.subscription?.deadLetterDepth() ?? Promise.reject(new Error('not consuming')),
    },
    { metricsToken: config.metricsToken },
  );
  const dispatcher = startMailDispatcher({
    outbox: deps.store.mail,
    mailer: deps.mailer,
    logger,
    metrics,
    mailFrom: config.mailFrom,
    queue: config.queue,
    pollMs: config.mailPollMs,
    retryInitialMs: config.mailRetryInitialMs,
    retryMaxMs: config.mailRetryMaxMs,
    leaseMs: config.mailLeaseMs,
  });
  const webhooks = startWebhookDispatcher({
    queue: deps.store.webhooks,
    logger,
    metrics,
    send: { allowInsecure: config.webhookAllowInsecure, ca: webhookCa },
    pollMs: config.webhookPollMs,
    leaseMs: config.webhookLeaseMs,
    retryInitialMs: config.webhookRetryInitialMs,
    retryMaxMs: config.webhookRetryMaxMs,
  });
  const handler = createBalanceChangedHandler({
    store: deps.store,
    logger,
    metrics,
    mailFrom: config.mailFrom,
    mail: { brandName: config.brandName, accountUrl: config.accountUrl, settingsUrl: config.settingsUrl, topUpUrl: config.topUpUrl },
    queue: config.queue,
    onMailQueued: () => dispatcher.wake(),
    onWebhookQueued: () => webhooks.wake(),
  });
  const consumer = deps.bus.consume(config.queue, BALANCE_CHANGED, handler, {
    prefetch: config.prefetch,
    deadLetterQueue: config.deadLetterQueue,
    deliveryLimit: config.deliveryLimit,
  });
  consuming.subscription = consumer;
  const sweepers = startSweepers(deps, config);
  const stopSweepers = (): Promise<void> => Promise.all(sweepers.map((sweeper) => sweeper.stop())).then(() => undefined);
  const running = await serve({
    name: 'notifier',
    app,
    port: config.port,
    host: config.host,
    health,
    logger,
    closers: [() => consumer.cancel(), () => dispatcher.stop(), () => webhooks.stop(), stopSweepers],
  }).catch(async (error: unknown) => {
    await consumer.cancel();
    await dispatcher.stop();
    await webhooks.stop();
    await stopSweepers();
    throw error;
  });
  return { ...running, consuming: consumer.ready };
}

export interface RunNotifierOptions extends Omit<StartNotifierOptions, 'infrastructure'> {
  /** Adapters opened elsewhere (a test's bus or mailer), used as they are and left open. */
  given?: Partial<Adapters>;
}

/** The notifier on infrastructure of its own, opened from its configuration and closed at stop() (main.ts, tests). */
export async function runNotifierService({ config, logger, given, webhookCa }: RunNotifierOptions): Promise<NotifierService> {
  const infrastructure = await openInfrastructure(config, {
    name: 'notifier',
    logger,
    needs: NOTIFIER_NEEDS,
    exchange: config.exchange,
    ...(given ? { given } : {}),
  });
  return serveOn(infrastructure, (adapters) =>
    startNotifierService({ config, logger, infrastructure: adapters, ...(webhookCa === undefined ? {} : { webhookCa }) }),
  );
}
