import { serve, type Logger, type RunningService } from '@platform/common';
import { createApp } from './app';
import type { CategorizationConfig } from './config';
import { createDeps, type ProvidedDeps } from './deps';
import { applyMigrations } from './store/migrations';
import { importTaxonomyIfMissing } from './taxonomy-import';

export interface StartCategorizationOptions {
  config: CategorizationConfig;
  logger: Logger;
  provided?: ProvidedDeps;
}

/**
 * Starts the categorization service: applies its migrations, imports the IAB taxonomy when no
 * IAB row is stored, loads the category list into memory, starts the version poller and
 * listens. stop() drains HTTP, stops the poller and closes what it opened.
 */
export async function startCategorizationService(options: StartCategorizationOptions): Promise<RunningService> {
  const { config, logger } = options;
  const deps = await createDeps(config, logger, options.provided);
  try {
    await applyMigrations(deps.pool, logger);
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
