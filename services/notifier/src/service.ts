import { serve, warnTestSwitches, type Logger, type RunningService } from '@platform/runtime';
import { serveOn, type Adapters } from '@platform/infrastructure';
import { migrate, startRetentionSweeper } from '@platform/db';
import { BALANCE_CHANGED } from '@platform/events';
import { createApp } from './app';
import type { NotifierConfig } from './config';
import { createDeps, NOTIFIER_NEEDS, type NotifierDeps, type NotifierInfrastructure, type NotifierSeams } from './deps';
import { createBalanceChangedHandler } from './entry-points/balance-changed-handler';
import { startMailDispatcher } from './entry-points/mail-dispatcher';
import { startWebhookDispatcher } from './entry-points/webhook-dispatcher';
import type { NotifierMetrics } from './metrics';
import { notifierMigrations } from './migrations';
import { deleteProcessedEvents, deleteSentMail } from './store/retention';

export interface NotifierService extends RunningService {
  /** Resolves once the consumer is attached to its queue (it waits for RabbitMQ if it is down). */
  consuming: Promise<void>;
}

export interface StartNotifierServiceOptions extends NotifierSeams {
  config: NotifierConfig;
  logger: Logger;
  /** Ready adapters (openInfrastructure); the service leaves them open at stop(). */
  infrastructure: NotifierInfrastructure;
}

/** Stops one background worker (drain, then close). */
type StopWorker = () => Promise<void>;

const HOUR_MS = 60 * 60 * 1000;

/**
 * Background workers that run beside the HTTP listener: the mail dispatcher (which also sends
 * what an earlier run left unsent), the webhook dispatcher, the balance.changed consumer and the
 * sweepers of handled event ids and sent e-mails. Their stop functions run after HTTP has
 * drained, consumer first.
 */
function startWorkers(
  deps: NotifierDeps,
  config: NotifierConfig,
  metrics: NotifierMetrics,
): { stops: StopWorker[]; consuming: Promise<void> } {
  const { logger } = deps;
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
  const mail = { brandName: config.brandName, accountUrl: config.accountUrl, settingsUrl: config.settingsUrl, topUpUrl: config.topUpUrl };
  const webhooks = startWebhookDispatcher({
    queue: deps.store.webhooks,
    inTransaction: (work) => deps.store.inTransaction(work),
    mail: { links: mail, mailFrom: config.mailFrom, queue: config.queue },
    onMailQueued: () => dispatcher.wake(),
    ...(deps.webhookClock ? { now: deps.webhookClock } : {}),
    logger,
    metrics,
    send: deps.webhookSend,
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
    mail,
    queue: config.queue,
    onMailQueued: () => dispatcher.wake(),
    onWebhookQueued: () => webhooks.wake(),
  });
  const consumer = deps.bus.consume(config.queue, BALANCE_CHANGED, handler, {
    prefetch: config.prefetch,
    deadLetterQueue: config.deadLetterQueue,
    deliveryLimit: config.deliveryLimit,
  });
  deps.consumer.attach(consumer);
  const common = { pool: deps.pool, logger, intervalMs: config.sweepMs };
  const sweepers = [
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
  const stopSweepers = (): Promise<void> => Promise.all(sweepers.map((sweeper) => sweeper.stop())).then(() => undefined);
  return {
    stops: [() => consumer.cancel(), () => dispatcher.stop(), () => webhooks.stop(), stopSweepers],
    consuming: consumer.ready,
  };
}

/**
 * Applies the notifier migrations, then serves; stop() drains HTTP and stops the workers. The user
 * service's tables (accounts, notification_settings, products) must exist.
 */
export async function startNotifierService({
  config,
  logger,
  infrastructure,
  ...seams
}: StartNotifierServiceOptions): Promise<NotifierService> {
  warnTestSwitches(logger, { WEBHOOK_ALLOW_INSECURE: config.webhookAllowInsecure });
  const deps = createDeps(config, logger, infrastructure, seams);
  await migrate(infrastructure.directPool, [notifierMigrations], logger);
  // The consumer starts after the app that reports it.
  const { app, health, metrics, metricsListener } = createApp(deps, config);
  const { stops, consuming } = startWorkers(deps, config, metrics);
  const running = await serve({
    name: 'notifier',
    app,
    port: config.port,
    host: config.host,
    health,
    logger,
    closers: [...stops, () => deps.close()],
    metrics: metricsListener,
  }).catch(async (error: unknown) => {
    for (const stop of stops) await stop();
    await deps.close();
    throw error;
  });
  return { ...running, consuming };
}

export interface RunNotifierServiceOptions extends NotifierSeams {
  config: NotifierConfig;
  logger: Logger;
  /** Adapters opened elsewhere (a test's bus or mailer), used as they are and left open. */
  given?: Partial<Adapters>;
}

/** The notifier on infrastructure of its own, opened from its configuration and closed at stop() (main.ts, tests). */
export async function runNotifierService({ config, logger, given, ...seams }: RunNotifierServiceOptions): Promise<NotifierService> {
  return serveOn(config, { name: 'notifier', logger, needs: NOTIFIER_NEEDS, exchange: config.exchange, given }, (adapters) =>
    startNotifierService({ config, logger, infrastructure: adapters, ...seams }),
  );
}
