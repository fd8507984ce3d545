import type { Logger, RunningService } from '@platform/common';
import { serve } from '@platform/common';
import { migrate } from '@platform/db';
import { createApp } from './app';
import type { UserConfig } from './config';
import { createDeps, type ProvidedDeps, type UserDeps } from './deps';
import { userMigrations } from './migrations';
import { startOutboxRelay } from './outbox-relay';
import { startUsageRequestSweeper } from './usage-request-sweeper';

export interface StartUserServiceOptions {
  config: UserConfig;
  logger: Logger;
  /** The embedded quickstart's shared pool, memory token store and in-process bus. */
  provided?: ProvidedDeps;
}

/** Stops one background worker (drain, then close). */
type StopWorker = () => Promise<void>;

/**
 * Background workers that run beside the HTTP listener: the outbox relay and the sweeper of
 * expired usage requestIds. Their stop functions run after HTTP has drained and before the
 * connections close.
 */
function startWorkers(deps: UserDeps, config: UserConfig): Promise<StopWorker[]> {
  const relay = startOutboxRelay({
    pool: deps.pool,
    bus: deps.bus,
    logger: deps.logger,
    pollMs: config.outboxPollMs,
    retryInitialMs: config.outboxRetryInitialMs,
    retryMaxMs: config.outboxRetryMaxMs,
  });
  const unsubscribe = deps.outbox.subscribe(() => relay.wake());
  const sweeper = startUsageRequestSweeper({
    pool: deps.pool,
    logger: deps.logger,
    retentionMs: config.usageRequestRetentionHours * 60 * 60 * 1000,
    intervalMs: config.usageRequestSweepMs,
  });
  return Promise.resolve([
    async () => {
      unsubscribe();
      await relay.stop();
    },
    () => sweeper.stop(),
  ]);
}

/** Applies the user migrations, then serves; stop() drains HTTP, stops the workers, closes what it opened. */
export async function startUserService({ config, logger, provided = {} }: StartUserServiceOptions): Promise<RunningService> {
  const deps = await createDeps(config, logger, provided);
  const stops: StopWorker[] = [];
  try {
    await migrate(deps.pool, [userMigrations], logger);
    // Reconciled (or known to be) before the first request; the watch retries if it could not.
    await deps.watch.start();
    const { app, health } = createApp(deps, config);
    stops.push(...(await startWorkers(deps, config)));
    return await serve({
      name: 'user',
      app,
      port: config.port,
      host: config.host,
      health,
      logger,
      closers: [...stops, () => deps.close()],
    });
  } catch (error) {
    for (const stop of stops) await stop().catch(() => undefined);
    await deps.close();
    throw error;
  }
}
