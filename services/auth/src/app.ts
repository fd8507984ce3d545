import type { Express } from 'express';
import { createHttpApp, Health } from '@platform/common';
import type { AuthConfig } from './config';
import type { AuthDeps } from './deps';
import { createTokenIssuer } from './domain/issue-token';
import { openapi } from './openapi';
import { introspectRevokeRoutes } from './routes/introspect-revoke.routes';
import { metadataRoutes } from './routes/metadata.routes';
import { tokenRoutes } from './routes/token.routes';

/** The endpoints browsers may call from any origin (CONTRACT §2). */
const PUBLIC_ENDPOINTS = {
  '/oauth/token': ['POST'],
  '/oauth/introspect': ['POST'],
  '/oauth/revoke': ['POST'],
  '/.well-known/oauth-authorization-server': ['GET'],
};

/** The auth service's express app (no I/O here: every connection comes in `deps`). */
export function createApp(deps: AuthDeps, config: AuthConfig): { app: Express; health: Health } {
  const health = new Health(deps.readiness);
  const http = createHttpApp({
    service: 'auth',
    logger: deps.logger,
    health,
    openapi,
    trustProxy: config.trustProxy,
    publicEndpoints: PUBLIC_ENDPOINTS,
    metricsToken: config.metricsToken,
  });

  const issuer = createTokenIssuer({
    keys: deps.issuanceKeys,
    tokens: deps.tokens,
    limits: deps.limits,
    now: deps.now,
    ...(deps.issuanceGate ? { gate: deps.issuanceGate } : {}),
  });
  http.app.use(tokenRoutes({ issuer, limits: deps.limits }));
  http.app.use(
    introspectRevokeRoutes({
      tokens: deps.tokens,
      findKey: (keyHash) => deps.keys.findActive(keyHash),
      adminToken: config.adminToken,
      serviceJwtSecret: config.serviceJwtSecret,
      now: deps.now,
      limits: deps.limits,
    }),
  );
  http.app.use(metadataRoutes({ publicUrl: config.publicUrl }));
  return { app: http.finish(), health };
}
