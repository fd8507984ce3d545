import type { Express, Router } from 'express';
import { ConfigError, createHttpApp, Health } from '@platform/common';
import { pingPostgres } from '@platform/db';
import type { UserConfig } from './config';
import type { UserDeps } from './deps';
import { openapi } from './openapi';
import { adminRoutes } from './routes/admin.routes';
import { apiKeyRoutes } from './routes/api-key.routes';
import { balanceRoutes } from './routes/balance.routes';
import { notificationSettingsRoutes } from './routes/notification-settings.routes';
import { createUserStore } from './store/user-store';

/**
 * Every router the service mounts. Seam: further APIs (the internal usage API) add their
 * router here; each gets the deps and the bound store.
 */
function routers(deps: UserDeps, config: UserConfig): Router[] {
  if (config.adminToken === undefined) throw new ConfigError('invalid configuration: ADMIN_TOKEN: Required');
  const store = createUserStore(deps.pool);
  return [
    balanceRoutes(deps, store),
    apiKeyRoutes(deps, store),
    notificationSettingsRoutes(deps, store),
    adminRoutes(store, config.adminToken),
  ];
}

/** The user service's HTTP app; no I/O until requests arrive. */
export function createApp(deps: UserDeps, config: UserConfig): { app: Express; health: Health } {
  const health = new Health({ postgres: pingPostgres(deps.pool), redis: () => deps.tokens.ping() });
  const http = createHttpApp({ service: 'user', logger: deps.logger, health, openapi });
  for (const router of routers(deps, config)) http.app.use(router);
  return { app: http.finish(), health };
}
