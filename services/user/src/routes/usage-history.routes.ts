import { NUMERIC } from '@platform/wire';
import { declareRoute, mountRoute, publicEdge, respond, routeGroup } from '@platform/kernel';
import { presentedCredential, type CredentialVerifier } from '@platform/credentials';
import { z } from 'zod';
import type { CatalogueReads } from '../domain/catalogue';
import {
  DEFAULT_HISTORY_DAYS,
  MAX_HISTORY_DAYS,
  usageHistory,
  type UsageHistoryItem,
  type UsageLedgerReads,
} from '../domain/usage-history';
import { apiKeyParam, customerSecurity, productIdParam, UsageHistory } from './schemas';

export const USAGE_HISTORY_PATH = '/user-service/usage-history';

/** `days`: absent (30), or an integer 1–90 as a numeric string. */
const daysParam = z
  .string()
  .regex(NUMERIC)
  .refine((value) => Number(value) >= 1 && Number(value) <= MAX_HISTORY_DAYS)
  .transform(Number)
  .optional()
  .transform((days) => days ?? DEFAULT_HISTORY_DAYS)
  .openapi({ description: `Days to cover, 1–${MAX_HISTORY_DAYS} (default ${DEFAULT_HISTORY_DAYS}).` });

/** `GET|POST /user-service/usage-history` (CONTRACT §4.6): credits used per UTC day and product. */
export const usageHistoryRoute = declareRoute({
  cors: true,
  accountData: true,
  methods: ['get', 'post'],
  paths: [USAGE_HISTORY_PATH],
  edge: publicEdge,
  summary: 'Usage history',
  description:
    'Credits used per UTC day and product over the last `days` days, today included, ordered by date, then product id. ' +
    'Only debits through the usage API count; days without usage have no item.',
  security: customerSecurity,
  params: { apiKey: apiKeyParam, days: daysParam, productId: productIdParam },
  responses: {
    200: { description: 'Usage history', body: UsageHistory },
    401: 'Missing or bad credential',
    422: 'Bad days, productId or outputFormat',
  },
});

/** The wire shape of one history item: `{"date","product_id","product":{"id","name"},"credits_used"}`. */
function itemView(item: UsageHistoryItem) {
  return {
    date: item.date,
    product_id: item.productId,
    product: { id: item.productId, name: item.productName },
    credits_used: item.creditsUsed,
  };
}

export interface UsageHistoryRouteUses {
  accountCredentials: CredentialVerifier;
  catalogue: CatalogueReads;
  ledger: UsageLedgerReads;
  /** The clock "the last `days` days" end at. */
  now: () => Date;
}

export const usageHistoryRoutes = routeGroup<UsageHistoryRouteUses>({
  routes: [usageHistoryRoute],
  mount: (router, uses) =>
    mountRoute(router, usageHistoryRoute, async (req, res, request) => {
      const principal = await uses.accountCredentials.require(presentedCredential(req, request.params));
      const { days, productId } = request.input();
      const items = await usageHistory(uses, principal.accountId, { days, productId, now: uses.now() });
      respond(res, 200, { data: items.map(itemView) });
    }),
});
