import { Router } from 'express';
import { checkOutputFormat, respond } from '@platform/kernel';
import { throwIfInvalid, type FieldMessages } from '@platform/wire';
import { presentedCredential } from '@platform/credentials';
import type { UserDeps } from '../deps';
import { parseProductFilter } from '../domain/balance';
import type { CatalogueReads } from '../domain/catalogue';
import { parseHistoryDays, usageHistory, type UsageHistoryItem, type UsageLedgerReads } from '../domain/usage-history';
import { publicRoute } from './route';

export const USAGE_HISTORY_PATH = '/user-service/usage-history';

/** The wire shape of one history item: `{"date","product_id","product":{"id","name"},"credits_used"}`. */
function itemView(item: UsageHistoryItem) {
  return {
    date: item.date,
    product_id: item.productId,
    product: { id: item.productId, name: item.productName },
    credits_used: item.creditsUsed,
  };
}

/** `GET|POST /user-service/usage-history` (CONTRACT §4.6): credits used per UTC day and product. */
export function usageHistoryRoutes(
  deps: UserDeps,
  reads: { catalogue: CatalogueReads; ledger: UsageLedgerReads },
  now: () => Date = () => new Date(),
): Router {
  const history = publicRoute(async (req, res, params) => {
    const principal = await deps.credentials.require(presentedCredential(req, params).secret);
    const errors: FieldMessages = {};
    checkOutputFormat(res, errors);
    const days = parseHistoryDays(params.get('days'), errors);
    const productId = parseProductFilter(params.get('productId'), errors);
    throwIfInvalid(errors);
    const items = await usageHistory(reads, principal.accountId, { days, productId, now: now() });
    respond(res, 200, { data: items.map(itemView) });
  });
  const router = Router();
  router.get(USAGE_HISTORY_PATH, history);
  router.post(USAGE_HISTORY_PATH, history);
  return router;
}
