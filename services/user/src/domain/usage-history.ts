import { invalidMessage, invalidParams } from '@platform/wire';
import type { CatalogueReads } from './catalogue';

/** How far back the history reaches (CONTRACT §4.6). */
export const MAX_HISTORY_DAYS = 90;
export const DEFAULT_HISTORY_DAYS = 30;
const DAY_MS = 86_400_000;

/** Midnight UTC that begins the first of the last `days` days, today (of `now`) included. */
export function historyStart(now: Date, days: number): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * DAY_MS);
}

/** Credits one product used on one UTC day. */
export interface DailyUsage {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  productId: number;
  creditsUsed: number;
}

/** The ledger's usage debits, summed per UTC day and product. */
export interface UsageLedgerReads {
  /** The account's usage per UTC day and product since `from`, ordered by day, then product id; optionally of one product. */
  dailyUsage(accountId: number, from: Date, productId: number | undefined): Promise<DailyUsage[]>;
}

/** One item of the history as the wire shows it, before rendering. */
export interface UsageHistoryItem {
  date: string;
  productId: number;
  productName: string;
  creditsUsed: number;
}

/**
 * The account's usage per UTC day and product over the last `days` days (CONTRACT §4.6), from
 * the ledger's usage debits; days without usage have no item. A product id outside the
 * catalogue is a 422; a catalogue product the account never used gives an empty history.
 */
export async function usageHistory(
  reads: { catalogue: CatalogueReads; ledger: UsageLedgerReads },
  accountId: number,
  query: { days: number; productId: number | undefined; now: Date },
): Promise<UsageHistoryItem[]> {
  if (query.productId !== undefined && !(await reads.catalogue.product(query.productId))) {
    throw invalidParams({ productId: [invalidMessage('productId')] });
  }
  const rows = await reads.ledger.dailyUsage(accountId, historyStart(query.now, query.days), query.productId);
  let known = await reads.catalogue.current();
  if (rows.some((row) => !known.byId.has(row.productId))) known = await reads.catalogue.reload();
  return rows.map((row) => ({ ...row, productName: known.byId.get(row.productId)?.name ?? `Product ${row.productId}` }));
}
