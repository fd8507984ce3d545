import { invalidMessage, invalidParams, NUMERIC, type FieldMessages, type ParamValue } from '@platform/common';
import type { Queryable } from '@platform/db';
import { catalogueProduct } from '../store/balances';
import { catalogue, reloadCatalogue } from '../store/catalogue';
import { readDailyUsage } from '../store/usage-history';

/** How far back the history reaches (CONTRACT §4.6). */
export const MAX_HISTORY_DAYS = 90;
export const DEFAULT_HISTORY_DAYS = 30;
const DAY_MS = 86_400_000;

/** `days`: absent (30), or an integer 1–90 as a numeric string; anything else is reported in `errors`. */
export function parseHistoryDays(value: ParamValue, errors: FieldMessages): number {
  if (value.kind === 'absent') return DEFAULT_HISTORY_DAYS;
  if (value.kind === 'value' && NUMERIC.test(value.value)) {
    const days = Number(value.value);
    if (days >= 1 && days <= MAX_HISTORY_DAYS) return days;
  }
  errors.days = [invalidMessage('days')];
  return DEFAULT_HISTORY_DAYS;
}

/** Midnight UTC that begins the first of the last `days` days, today (of `now`) included. */
export function historyStart(now: Date, days: number): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * DAY_MS);
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
  db: Queryable,
  accountId: number,
  query: { days: number; productId: number | undefined; now: Date },
): Promise<UsageHistoryItem[]> {
  if (query.productId !== undefined && !(await catalogueProduct(db, query.productId))) {
    throw invalidParams({ productId: [invalidMessage('productId')] });
  }
  const rows = await readDailyUsage(db, accountId, historyStart(query.now, query.days), query.productId);
  let known = await catalogue(db);
  if (rows.some((row) => !known.byId.has(row.productId))) known = await reloadCatalogue(db);
  return rows.map((row) => ({ ...row, productName: known.byId.get(row.productId)?.name ?? `Product ${row.productId}` }));
}
