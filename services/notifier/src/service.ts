import { serve, type Logger, type RunningService } from '@platform/common';
import { migrate } from '@platform/db';
import { BALANCE_CHANGED, type Subscription } from '@platform/events';
import { createApp } from './app';
import { createBalanceChangedHandler } from './balance-changed-handler';
import type { NotifierConfig } from './config';
import { createDeps, type ProvidedDeps } from './deps';
import { startMailDispatcher } from './mail-dispatcher';
import { notifierMigrations } from './migrations';

export interface NotifierService extends RunningService {
  /** Resolves once the consumer is attached to its queue (it waits for RabbitMQ if it is down). */
  consuming: Promise<void>;
}

export interface StartNotifierOptions {
  config: NotifierConfig;
  logger: Logger;
  /** Embedded quickstart: a shared pool, the in-process bus, a file mailer. */
  provided?: ProvidedDeps;
}

/**
 * Starts the notifier: migrations, the mail dispatcher (which also sends what an earlier run
 * left unsent), the balance.changed consumer and the operations HTTP listener. The user
 * service's tables (accounts, notification_settings, products) must exist.
 */
export async function startNotifierService({ config, logger, provided = {} }: StartNotifierOptions): Promise<NotifierService> {
  const deps = createDeps(config, logger, provided);
  let subscription: Subscription | undefined;
  try {
    await migrate(deps.pool, [notifierMigrations], logger);
    const { app, health, metrics } = createApp(
      deps,
      {
        isConsuming: () => subscription?.isActive() ?? false,
        deadLetterDepth: () => subscription?.deadLetterDepth() ?? Promise.reject(new Error('not consuming')),
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
    });
    subscription = consumer;
    const running = await serve({
      name: 'notifier',
      app,
      port: config.port,
      host: config.host,
      health,
      logger,
      closers: [() => consumer.cancel(), () => dispatcher.stop(), () => deps.close()],
    }).catch(async (error: unknown) => {
      await consumer.cancel();
      await dispatcher.stop();
      throw error;
    });
    return { ...running, consuming: consumer.ready };
  } catch (error) {
    await deps.close();
    throw error;
  }
}
