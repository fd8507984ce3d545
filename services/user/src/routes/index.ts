/**
 * The user service's route table (issue 42): every routes file's group, in the order of the
 * OpenAPI document (`declaredRoutes`), and mounted in that order by app.ts (`mountRouteGroups`;
 * the internal usage API first). A new routes file is one line here; a new route in a file, none.
 */
import { accountPageRoutes } from './account-page.routes';
import { adminConsoleRoutes } from './admin-console.routes';
import { adminRoutes } from './admin.routes';
import { apiKeyRoutes } from './api-key.routes';
import { balanceRoutes } from './balance.routes';
import { creditHistoryRoutes } from './credit-history.routes';
import { notificationSettingsRoutes } from './notification-settings.routes';
import { reservationRoutes } from './reservations.routes';
import { usageBatchRoutes } from './usage-batch.routes';
import { usageHistoryRoutes } from './usage-history.routes';
import { usageRoutes } from './usage.routes';
import { webhookDeliveriesRoutes } from './webhook-deliveries.routes';

export const userRouteTable = [
  balanceRoutes,
  apiKeyRoutes,
  notificationSettingsRoutes,
  webhookDeliveriesRoutes,
  usageHistoryRoutes,
  creditHistoryRoutes,
  adminRoutes,
  usageRoutes,
  usageBatchRoutes,
  reservationRoutes,
  // The account page and its session API; the operator console last (its files are no API).
  accountPageRoutes,
  adminConsoleRoutes,
];
