import { serve, type Logger, type RunningService } from '@platform/common';
import { createApp } from './app';
import type { AuthConfig } from './config';
import { createDeps, type ProvidedDeps } from './deps';

export interface StartAuthServiceOptions {
  config: AuthConfig;
  logger: Logger;
  /** The embedded quickstart's shared pool, memory token store and `limiterBackend: 'memory'`. */
  provided?: ProvidedDeps;
}

/**
 * Serves the auth service. It owns no tables (it reads the user service's to reconcile its Redis
 * records, and the user service migrates them), so there is nothing to migrate here. stop() drains HTTP, then closes what
 * createDeps opened.
 */
export async function startAuthService({ config, logger, provided = {} }: StartAuthServiceOptions): Promise<RunningService> {
  const deps = await createDeps(config, logger, provided);
  try {
    // Reconciled (or known to be) before the first request; if Redis or Postgres is not there
    // yet, the service starts not ready and the watch retries.
    await deps.watch.start();
    const { app, health } = createApp(deps, config);
    return await serve({ name: 'auth', app, port: config.port, host: config.host, health, logger, closers: [() => deps.close()] });
  } catch (error) {
    await deps.close();
    throw error;
  }
}
