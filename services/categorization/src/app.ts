import type { Express } from 'express';
import { corsEndpoints, createHttpApp, type MetricsListener } from '@platform/kernel';
import { Health } from '@platform/runtime';
import { pingPostgres } from '@platform/db';
import type { CategorizationConfig } from './config';
import type { CategorizationDeps } from './deps';
import { adminOpenapi, categorizationRoutes, openapi } from './openapi';
import { mountAdminRoutes } from './routes/admin.routes';
import { mountCategoryRoutes } from './routes/categories.routes';

/** The categorization service's HTTP app; no I/O here. */
export function createApp(
  deps: CategorizationDeps,
  config: CategorizationConfig,
): { app: Express; health: Health; metricsListener: MetricsListener | undefined } {
  const health = new Health({
    postgres: pingPostgres(deps.pool),
    redis: () => deps.watch.check(),
    categories: () => (deps.catalog.loaded ? Promise.resolve() : Promise.reject(new Error('category list not loaded'))),
  });
  const http = createHttpApp({
    service: 'categorization',
    logger: deps.logger,
    health,
    openapi,
    trustProxy: config.trustProxy,
    metricsToken: config.metricsToken,
    metricsPort: config.metricsPort,
    // The endpoints browsers may call from any origin (CONTRACT §2): the routes declared `cors`,
    // that is the category list; the admin API sends no CORS headers.
    publicEndpoints: corsEndpoints(categorizationRoutes),
  });
  mountCategoryRoutes(http.app, deps);
  mountAdminRoutes(http.app, {
    writer: deps.store,
    catalog: deps.catalog,
    adminTokens: config.adminTokens,
    adminFailures: deps.adminFailures,
    document: adminOpenapi,
  });
  return { app: http.finish(), health, metricsListener: http.metricsListener() };
}
