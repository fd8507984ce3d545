import { serve, type Logger, type RunningService } from '@platform/runtime';
import { openInfrastructure, serveOn, type Adapters } from '@platform/infrastructure';
import { createApp } from './app';
import type { CategorizationConfig } from './config';
import { CATEGORIZATION_NEEDS, createDeps, type CategorizationInfrastructure } from './deps';
import { applyMigrations } from './store/migrations';
import { importTaxonomyIfMissing } from './taxonomy-import';

export interface StartCategorizationOptions {
  config: CategorizationConfig;
  logger: Logger;
  /** Ready adapters (openInfrastructure); the service leaves them open at stop(). */
  infrastructure: CategorizationInfrastructure;
}

/**
 * Starts the categorization service: applies its migrations, imports the IAB taxonomy when no
 * IAB row is stored, loads the category list into memory, starts the version poller and
 * listens. stop() drains HTTP and stops the poller.
 */
export async function startCategorizationService(options: StartCategorizationOptions): Promise<RunningService> {
  const { config, logger } = options;
  const deps = createDeps(config, logger, options.infrastructure);
  try {
    await applyMigrations(options.infrastructure.directPool, logger);
    await importTaxonomyIfMissing(deps.store, config.iabTaxonomyFile, logger);
    await deps.catalog.refresh();
    deps.catalog.start();
    // Credential checks answer from the access store once it is reconciled (or known to be).
    await deps.watch.start();
    const { app, health } = createApp(deps, config);
    return await serve({
      name: 'categorization',
      app,
      port: config.port,
      host: config.host,
      health,
      logger,
      closers: [() => deps.catalog.stop(), () => deps.close()],
    });
  } catch (error) {
    await deps.catalog.stop();
    await deps.close().catch(() => undefined);
    throw error;
  }
}

export interface RunCategorizationOptions extends Omit<StartCategorizationOptions, 'infrastructure'> {
  /** Adapters opened elsewhere (a test's pool or store), used as they are and left open. */
  given?: Partial<Adapters>;
}

/** The service on infrastructure of its own, opened from its configuration and closed at stop() (main.ts, tests). */
export async function runCategorizationService({ config, logger, given }: RunCategorizationOptions): Promise<RunningService> {
  const infrastructure = await openInfrastructure(config, {
    name: 'categorization',
    logger,
    needs: CATEGORIZATION_NEEDS,
    ...(given ? { given } : {}),
  });
  return serveOn(infrastructure, (adapters) => startCategorizationService({ config, logger, infrastructure: adapters }));
}
