import { serviceDocuments } from '@platform/kernel';
import { accountPageConfigRoute } from './routes/account-page.routes';
import { openSessionRoute, readSessionRoute, revokeSessionRoute } from './routes/account-session.routes';
import { changeCreditsRoute, createAccountRoute, showAccountRoute } from './routes/admin.routes';
import { adminSessionRoute, listProductsRoute } from './routes/admin-products.routes';
import { apiKeyRoute } from './routes/api-key.routes';
import {
  accountLedgerRoute,
  accountUsageRoute,
  auditRoute,
  patchAccountRoute,
  rotateAccountKeyRoute,
  searchAccountsRoute,
} from './routes/operator-declarations';
import { balanceRoute } from './routes/balance.routes';
import { changeSettingsRoute, readSettingsRoute, webhookTestRoute } from './routes/notification-settings.routes';
import { usageHistoryRoute } from './routes/usage-history.routes';
import { creditHistoryRoute } from './routes/credit-history.routes';
import { usageRoute } from './routes/usage.routes';
import { usageBatchRoute } from './routes/usage-batch.routes';
import { releaseRoute, reserveRoute, settleRoute } from './routes/reservations.routes';
import { webhookDeliveriesRoute } from './routes/webhook-deliveries.routes';
import { securitySchemes } from './routes/schemas';

/** Every route the user service declares, in the document's order (each is mounted from its declaration). */
export const userRoutes = [
  balanceRoute,
  apiKeyRoute,
  readSettingsRoute,
  changeSettingsRoute,
  webhookTestRoute,
  webhookDeliveriesRoute,
  usageHistoryRoute,
  creditHistoryRoute,
  createAccountRoute,
  showAccountRoute,
  changeCreditsRoute,
  searchAccountsRoute,
  patchAccountRoute,
  rotateAccountKeyRoute,
  accountLedgerRoute,
  accountUsageRoute,
  auditRoute,
  listProductsRoute,
  adminSessionRoute,
  usageRoute,
  usageBatchRoute,
  reserveRoute,
  settleRoute,
  releaseRoute,
  accountPageConfigRoute,
  openSessionRoute,
  readSessionRoute,
  revokeSessionRoute,
];

/**
 * OpenAPI 3.1 descriptions of the user service, generated from its route declarations: `openapi`
 * its public endpoints (served at /openapi.json), `adminOpenapi` its admin and internal APIs
 * (served at /admin/v1/openapi.json to an admin token).
 */
export const { openapi, adminOpenapi } = serviceDocuments({
  info: { title: 'User service', version: '1.0.0', description: 'Accounts, API keys, credit balances, notification settings.' },
  routes: userRoutes,
  securitySchemes,
  adminScheme: 'admin',
});
