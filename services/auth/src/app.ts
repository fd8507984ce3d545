import type { Express } from 'express';
import { Counter } from 'prom-client';
import { adminTokenMatcher, corsEndpoints, createHttpApp, type MetricsListener } from '@platform/kernel';
import { Health } from '@platform/runtime';
import type { AuthConfig } from './config';
import type { AuthDeps } from './deps';
import { createTokenIssuer, type TokenIssuer } from './domain/issue-token';
import { authRoutes, openapi } from './openapi';
import { introspectRevokeRoutes } from './routes/introspect-revoke.routes';
import { metadataRoutes } from './routes/metadata.routes';
import { tokenRoutes } from './routes/token.routes';

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

  const issued = new Counter({
    name: 'tokens_issued_total',
    help: 'Access tokens issued (both flows)',
    registers: [http.metrics.registry],
  });
  const issuer = countedIssuer(
    createTokenIssuer({ access: deps.access, limit: deps.issuanceLimit, now: deps.now, explainKey: deps.explainKey }),
    issued,
  );
  // Mounted on the app itself, not as nested routers: a router inside the app's router costs a
  // second dispatch on every request.
  tokenRoutes(http.app, { issuer, limits: deps.limits });
  introspectRevokeRoutes(http.app, {
    access: deps.access,
    findKey: (keyHash) => deps.access.findKey(keyHash),
    explainKey: deps.explainKey,
    matchAdminToken: adminTokenMatcher(config.adminTokens),
    serviceJwtSecret: config.serviceJwtSecret,
    adminFailures: deps.adminFailures,
    now: deps.now,
    limits: deps.limits,
  });
  metadataRoutes(http.app, { publicUrl: config.publicUrl });
  return { app: http.finish(), health, metricsListener: http.metricsListener() };
}
