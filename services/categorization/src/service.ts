import { serve, type Logger, type RunningService } from '@platform/runtime';
import { serveOn, type Adapters } from '@platform/infrastructure';
import { migrate } from '@platform/db';
import { createApp } from './app';
import type { CategorizationConfig } from './config';
import { CATEGORIZATION_NEEDS, createDeps, type CategorizationInfrastructure } from './deps';
import { categorizationMigrations } from './migrations';
import { importTaxonomyIfMissing } from './taxonomy-import';

export interface StartCategorizationServiceOptions {
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
export async function startCategorizationService({
  config,
  logger,
  infrastructure,
}: StartCategorizationServiceOptions): Promise<RunningService> {
  const deps = createDeps(config, logger, infrastructure);
  try {
    await migrate(infrastructure.directPool, [categorizationMigrations], logger);
    await importTaxonomyIfMissing(deps.store, config.iabTaxonomyFile, logger);
    await deps.catalog.refresh();
    deps.catalog.start();
    // Credential checks answer from the access store once it is reconciled (or known to be).
    await deps.watch.start();
    const { app, health, metricsListener } = createApp(deps, config);
    return await serve({
      name: 'categorization',
      app,
      port: config.port,
      host: config.host,
      health,
      logger,
      closers: [() => deps.catalog.stop(), () => deps.close()],
      metrics: metricsListener,
    });
  } catch (error) {
    await deps.catalog.stop();
    await deps.close().catch(() => undefined);
    throw error;
  }
}

export interface RunCategorizationServiceOptions {
  config: CategorizationConfig;
  logger: Logger;
  /** Adapters opened elsewhere (a test's pool or store), used as they are and left open. */
  given?: Partial<Adapters>;
}

/** The service on infrastructure of its own, opened from its configuration and closed at stop() (main.ts, tests). */
export async function runCategorizationService({ config, logger, given }: RunCategorizationServiceOptions): Promise<RunningService> {
  return serveOn(config, { name: 'categorization', logger, needs: CATEGORIZATION_NEEDS, given }, (adapters) =>
    startCategorizationService({ config, logger, infrastructure: adapters }),
  );
}
