import type { Express } from 'express';
import { Counter, type Registry } from 'prom-client';
import { adminTokenMatcher, corsEndpoints, createHttpApp, mountRouteGroups, type MetricsListener, type UsesOf } from '@platform/kernel';
import { Health } from '@platform/runtime';
import type { AuthConfig } from './config';
import type { AuthDeps } from './deps';
import { createTokenIssuer, type TokenIssuer } from './domain/issue-token';
import { authRoutes, openapi } from './openapi';
import { authRouteTable } from './routes';

/** Counts every token issued (both flows) on `tokens_issued_total`. */
function countedIssuer(issuer: TokenIssuer, issued: Counter): TokenIssuer {
  return {
    authenticate: (credential) => issuer.authenticate(credential),
    async issue(credential, ttlSeconds) {
      const token = await issuer.issue(credential, ttlSeconds);
      issued.inc();
      return token;
    },
  };
}

/** What the route table's groups use (`UsesOf`: each group asks for its part by name); issuances count on `registry`. */
function routeUses(deps: AuthDeps, config: AuthConfig, registry: Registry): UsesOf<typeof authRouteTable> {
  const issued = new Counter({ name: 'tokens_issued_total', help: 'Access tokens issued (both flows)', registers: [registry] });
  return {
    issuer: countedIssuer(
      createTokenIssuer({ access: deps.access, limit: deps.issuanceLimit, now: deps.now, explainKey: deps.explainKey }),
      issued,
    ),
    limits: deps.limits,
    access: deps.access,
    findKey: (keyHash) => deps.access.findKey(keyHash),
    explainKey: deps.explainKey,
    matchAdminToken: adminTokenMatcher(config.adminTokens),
    serviceJwtSecret: config.serviceJwtSecret,
    adminFailures: deps.adminFailures,
    now: deps.now,
    publicUrl: config.publicUrl,
  };
}

/** The auth service's express app (no I/O here: every connection comes in `deps`). */
export function createApp(
  deps: AuthDeps,
  config: AuthConfig,
): { app: Express; health: Health; metricsListener: MetricsListener | undefined } {
  const health = new Health(deps.readiness);
  const http = createHttpApp({
    service: 'auth',
    logger: deps.logger,
    health,
    openapi,
    trustProxy: config.trustProxy,
    // The endpoints browsers may call from any origin (CONTRACT §2): the routes declared `cors`.
    publicEndpoints: corsEndpoints(authRoutes),
    metricsToken: config.metricsToken,
    metricsPort: config.metricsPort,
  });
  mountRouteGroups({ app: http.app }, authRouteTable, routeUses(deps, config, http.metrics.registry));
  return { app: http.finish(), health, metricsListener: http.metricsListener() };
}
