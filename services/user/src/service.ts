import { type Logger, type RunningService, serve } from '@platform/runtime';
import { openInfrastructure, serveOn, type Adapters } from '@platform/infrastructure';
import { migrate } from '@platform/db';
import { createApp } from './app';
import type { UserConfig } from './config';
import { createDeps, USER_NEEDS, type UserDeps, type UserInfrastructure, type UserSeams } from './deps';
import { userMigrations } from './migrations';
import { startOutboxRelay } from './outbox-relay';
import { startRetentionSweeper } from './retention-sweeper';
import { deletePublishedEvents } from './store/outbox';
import { deleteExpiredUsageRequests } from './store/usage-requests';

export interface StartUserServiceOptions extends UserSeams {
  config: UserConfig;
  logger: Logger;
  /** Ready adapters (openInfrastructure); the service leaves them open at stop(). */
  infrastructure: UserInfrastructure;
}

/** Stops one background worker (drain, then close). */
type StopWorker = () => Promise<void>;

const HOUR_MS = 60 * 60 * 1000;

/**
 * Background workers that run beside the HTTP listener: the outbox relay, and the sweepers of
 * expired usage requestIds and of published events. Their stop functions run after HTTP has
 * drained and before the connections close.
 */
function startWorkers(deps: UserDeps, config: UserConfig): Promise<StopWorker[]> {
  const relay = startOutboxRelay({
    pool: deps.pool,
    bus: deps.bus,
    logger: deps.logger,
    pollMs: config.outboxPollMs,
    wakeDelayMs: config.outboxWakeDelayMs,
    retryInitialMs: config.outboxRetryInitialMs,
    retryMaxMs: config.outboxRetryMaxMs,
  });
  const unsubscribe = deps.outbox.subscribe(() => relay.wake());
  const sweepers = [
    startRetentionSweeper({
      name: 'usage request',
      pool: deps.pool,
      logger: deps.logger,
      retentionMs: config.usageRequestRetentionHours * HOUR_MS,
      intervalMs: config.usageRequestSweepMs,
      deleteExpired: deleteExpiredUsageRequests,
    }),
    startRetentionSweeper({
      name: 'published event',
      pool: deps.pool,
      logger: deps.logger,
      retentionMs: config.outboxRetentionHours * HOUR_MS,
      intervalMs: config.outboxSweepMs,
      deleteExpired: deletePublishedEvents,
    }),
  ];
  return Promise.resolve([
    async () => {
      unsubscribe();
      await relay.stop();
    },
    ...sweepers.map((sweeper) => () => sweeper.stop()),
  ]);
}

/** Applies the user migrations, then serves; stop() drains HTTP and stops the workers. */
export async function startUserService({ config, logger, infrastructure, ...seams }: StartUserServiceOptions): Promise<RunningService> {
  const deps = createDeps(config, logger, infrastructure, seams);
  const stops: StopWorker[] = [];
  try {
    await migrate(infrastructure.directPool, [userMigrations], logger);
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

export interface RunUserServiceOptions extends UserSeams {
  config: UserConfig;
  logger: Logger;
  /** Adapters opened elsewhere (a test's bus or store), used as they are and left open. */
  given?: Partial<Adapters>;
}

/** The user service on infrastructure of its own, opened from its configuration and closed at stop() (main.ts, tests). */
export async function runUserService({ config, logger, given, ...seams }: RunUserServiceOptions): Promise<RunningService> {
  const infrastructure = await openInfrastructure(config, {
    name: 'user',
    logger,
    needs: USER_NEEDS,
    exchange: config.balanceExchange,
    usagePoolMax: config.usageBatchLanes,
    ...(given ? { given } : {}),
  });
  return serveOn(infrastructure, (adapters) => startUserService({ config, logger, infrastructure: adapters, ...seams }));
}
