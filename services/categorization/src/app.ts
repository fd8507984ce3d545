import type { Express } from 'express';
import { corsEndpoints, createHttpApp, mountRouteGroups, type MetricsListener, type UsesOf } from '@platform/kernel';
import { Health } from '@platform/runtime';
import { pingPostgres } from '@platform/db';
import type { CategorizationConfig } from './config';
import type { CategorizationDeps } from './deps';
import { adminOpenapi, categorizationRoutes, openapi } from './openapi';
import { categorizationRouteTable } from './routes';

/** What the route table's groups use (`UsesOf`: each group asks for its part by name). */
function routeUses(deps: CategorizationDeps, config: CategorizationConfig): UsesOf<typeof categorizationRouteTable> {
  return {
    catalog: deps.catalog,
    verifier: deps.verifier,
    writer: deps.store,
    adminTokens: config.adminTokens,
    adminFailures: deps.adminFailures,
    document: adminOpenapi,
  };
}

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
  mountRouteGroups({ app: http.app }, categorizationRouteTable, routeUses(deps, config));
  return { app: http.finish(), health, metricsListener: http.metricsListener() };
}
