import { serve, type Logger, type RunningService } from '@platform/runtime';
import { serveOn, type Adapters } from '@platform/infrastructure';
import { createApp } from './app';
import type { AuthConfig } from './config';
import { AUTH_NEEDS, AUTH_POOL_MAX, createDeps, type AuthInfrastructure, type AuthSeams } from './deps';

export interface StartAuthServiceOptions extends AuthSeams {
  config: AuthConfig;
  logger: Logger;
  /** Ready adapters (openInfrastructure); the service leaves them open at stop(). */
  infrastructure: AuthInfrastructure;
}

/**
 * Serves the auth service. It owns no tables (it reads the user service's to reconcile its Redis
 * records, and the user service migrates them), so there is nothing to migrate here. stop() drains HTTP.
 */
export async function startAuthService({ config, logger, infrastructure, ...seams }: StartAuthServiceOptions): Promise<RunningService> {
  const deps = createDeps(config, logger, infrastructure, seams);
  try {
    // Reconciled (or known to be) before the first request; if Redis or Postgres is not there
    // yet, the service starts not ready and the watch retries.
    await deps.watch.start();
    const { app, health, metricsListener } = createApp(deps, config);
    return await serve({
      name: 'auth',
      app,
      port: config.port,
      host: config.host,
      health,
      logger,
      closers: [() => deps.close()],
      metrics: metricsListener,
    });
  } catch (error) {
    await deps.close();
    throw error;
  }
}

export interface RunAuthServiceOptions extends AuthSeams {
  config: AuthConfig;
  logger: Logger;
  /** Adapters opened elsewhere (a test's pool or store), used as they are and left open. */
  given?: Partial<Adapters>;
}

/** The auth service on infrastructure of its own, opened from its configuration and closed at stop() (main.ts, tests). */
export async function runAuthService({ config, logger, given, ...seams }: RunAuthServiceOptions): Promise<RunningService> {
  return serveOn(config, { name: 'auth', logger, needs: AUTH_NEEDS, poolMax: AUTH_POOL_MAX, given }, (adapters) =>
    startAuthService({ config, logger, infrastructure: adapters, ...seams }),
  );
}
