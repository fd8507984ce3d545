import { serve, type Logger, type RunningService } from '@platform/runtime';
import { openInfrastructure, serveOn, type Adapters } from '@platform/infrastructure';
import { migrate } from '@platform/db';
import { BALANCE_CHANGED, type Subscription } from '@platform/events';
import { createApp } from './app';
import { createBalanceChangedHandler } from './balance-changed-handler';
import type { NotifierConfig } from './config';
import { createDeps, NOTIFIER_NEEDS, type NotifierInfrastructure } from './deps';
import { startMailDispatcher } from './mail-dispatcher';
import { notifierMigrations } from './migrations';

export interface NotifierService extends RunningService {
  /** Resolves once the consumer is attached to its queue (it waits for RabbitMQ if it is down). */
  consuming: Promise<void>;
}

export interface StartNotifierOptions {
  config: NotifierConfig;
  logger: Logger;
  /** Ready adapters (openInfrastructure); the service leaves them open at stop(). */
  infrastructure: NotifierInfrastructure;
}

/**
 * Starts the notifier: migrations, the mail dispatcher (which also sends what an earlier run
 * left unsent), the balance.changed consumer and the operations HTTP listener. The user
 * service's tables (accounts, notification_settings, products) must exist.
 */
export async function startNotifierService({ config, logger, infrastructure }: StartNotifierOptions): Promise<NotifierService> {
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
    pool: deps.pool,
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
  const handler = createBalanceChangedHandler({
    pool: deps.pool,
    logger,
    metrics,
    mailFrom: config.mailFrom,
    settingsUrl: config.settingsUrl,
    queue: config.queue,
    onMailQueued: () => dispatcher.wake(),
  });
  const consumer = deps.bus.consume(config.queue, BALANCE_CHANGED, handler, {
    prefetch: config.prefetch,
    deadLetterQueue: config.deadLetterQueue,
    deliveryLimit: config.deliveryLimit,
  });
  consuming.subscription = consumer;
  const running = await serve({
    name: 'notifier',
    app,
    port: config.port,
    host: config.host,
    health,
    logger,
    closers: [() => consumer.cancel(), () => dispatcher.stop()],
  }).catch(async (error: unknown) => {
    await consumer.cancel();
    await dispatcher.stop();
    throw error;
  });
  return { ...running, consuming: consumer.ready };
}

export interface RunNotifierOptions extends Omit<StartNotifierOptions, 'infrastructure'> {
  /** Adapters opened elsewhere (a test's bus or mailer), used as they are and left open. */
  given?: Partial<Adapters>;
}

/** The notifier on infrastructure of its own, opened from its configuration and closed at stop() (main.ts, tests). */
export async function runNotifierService({ config, logger, given }: RunNotifierOptions): Promise<NotifierService> {
  const infrastructure = await openInfrastructure(config, {
    name: 'notifier',
    logger,
    needs: NOTIFIER_NEEDS,
    exchange: config.exchange,
    ...(given ? { given } : {}),
  });
  return serveOn(infrastructure, (adapters) => startNotifierService({ config, logger, infrastructure: adapters }));
}
