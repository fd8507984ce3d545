import { serve, warnTestSwitches, type Logger, type RunningService } from '@platform/runtime';
import { serveOn, type Adapters } from '@platform/infrastructure';
import { migrate, startRetentionSweeper } from '@platform/db';
import { createApp } from './app';
import type { UserConfig } from './config';
import { createDeps, USER_NEEDS, type UserDeps, type UserInfrastructure, type UserSeams } from './deps';
import { userMigrations } from './migrations';
import { startOutboxRelay } from './entry-points/outbox-relay';
import { startAccessRepairSweeper } from './entry-points/access-repair-sweeper';
import { accessRepairs } from './store/access-repairs';
import { createOutboxStore, deletePublishedEvents } from './store/outbox';
import { deleteExpiredUsageRequests } from './store/usage-requests';
import { createReservations } from './domain/reservations';
import { startReservationExpirySweeper } from './entry-points/reservation-expiry';
import { createReservationStore } from './store/reservations';

export interface StartUserServiceOptions extends UserSeams {
  config: UserConfig;
  logger: Logger;
  /** Ready adapters (openInfrastructure); the service leaves them open at stop(). */
  infrastructure: UserInfrastructure;
}

/** The running user service; `internalUrl` when the internal usage API listens on a port of its own (USER_INTERNAL_PORT). */
export interface UserService extends RunningService {
  internalUrl?: string;
}

/** Stops one background worker (drain, then close). */
type StopWorker = () => Promise<void>;

const HOUR_MS = 60 * 60 * 1000;

/**
 * Background workers that run beside the HTTP listener: the outbox relay, the sweepers of
 * expired usage requestIds and of published events, the access repair sweeper and the reservation expiry sweeper. Their stop functions run after HTTP has
 * drained and before the connections close.
 */
function startWorkers(deps: UserDeps, config: UserConfig): Promise<StopWorker[]> {
  const relay = startOutboxRelay({
    outbox: createOutboxStore(deps.pool),
    bus: deps.bus,
    logger: deps.logger,
    pollMs: config.outboxPollMs,
    wakeDelayMs: config.outboxWakeDelayMs,
    retryInitialMs: config.outboxRetryInitialMs,
    retryMaxMs: config.outboxRetryMaxMs,
    maxMessageBytes: config.outboxMessageMaxBytes,
  });
  const unsubscribe = deps.outbox.subscribe(() => relay.wake());
  // What a killed process committed or closed without settling it in Redis: repaired now, then swept.
  const repairs = startAccessRepairSweeper(accessRepairs(deps.access), deps.logger, config.accessRepairSweepMs);
  const reservationStore = createReservationStore(deps.pool, deps.accounts);
  const expiry = startReservationExpirySweeper({
    reservations: createReservations(reservationStore),
    store: reservationStore,
    logger: deps.logger,
    intervalMs: config.reservationSweepMs,
  });
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
    () => repairs.stop(),
    () => expiry.stop(),
  ]);
}

/** Applies the user migrations, then serves; stop() drains HTTP and stops the workers. */
export async function startUserService({ config, logger, infrastructure, ...seams }: StartUserServiceOptions): Promise<UserService> {
  warnTestSwitches(logger, { WEBHOOK_ALLOW_INSECURE: config.webhookAllowInsecure });
  const deps = createDeps(config, logger, infrastructure, seams);
  const stops: StopWorker[] = [];
  try {
    await migrate(infrastructure.directPool, [userMigrations], logger);
    // Reconciled (or known to be) before the first request; the watch retries if it could not.
    await deps.watch.start();
    const { app, health, internal, metricsListener } = createApp(deps, config);
    stops.push(...(await startWorkers(deps, config)));
    const internalListener =
      internal && config.internalPort !== undefined
        ? await serve({ name: 'user-internal', app: internal, port: config.internalPort, host: config.host, health, logger })
        : undefined;
    if (internalListener) stops.unshift(() => internalListener.stop());
    const running = await serve({
      name: 'user',
      app,
      port: config.port,
      host: config.host,
      health,
      logger,
      closers: [...stops, () => deps.close()],
      metrics: metricsListener,
    });
    return internalListener ? { ...running, internalUrl: internalListener.url } : running;
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
export async function runUserService({ config, logger, given, ...seams }: RunUserServiceOptions): Promise<UserService> {
  const options = {
    name: 'user',
    logger,
    needs: USER_NEEDS,
    exchange: config.balanceExchange,
    usagePoolMax: config.usageBatchLanes,
    given,
  };
  return serveOn(config, options, (adapters) => startUserService({ config, logger, infrastructure: adapters, ...seams }));
}
