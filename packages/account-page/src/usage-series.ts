import type { UsageRow } from './api';

const DAY_MS = 86_400_000;

/** Daily usage ready to draw: every day of the window (days without usage at 0) and one series per product used. */
export interface UsageSeries {
  /** `YYYY-MM-DD`, oldest first, today last. */
  dates: string[];
  products: Array<{ id: number; name: string; values: number[]; total: number }>;
}

/** The last `days` UTC dates up to and including today, oldest first. */
export function windowDates(days: number, now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, index) => new Date(today - (days - 1 - index) * DAY_MS).toISOString().slice(0, 10));
}

/** Spreads the API's rows (days with usage only) over the whole window, one series per product, ordered by product id. */
export function usageSeries(rows: readonly UsageRow[], days: number, now: Date): UsageSeries {
  const dates = windowDates(days, now);
  const position = new Map(dates.map((date, index) => [date, index]));
  const products = new Map<number, { id: number; name: string; values: number[]; total: number }>();
  for (const row of rows) {
    const index = position.get(row.date);
    if (index === undefined) continue;
    let product = products.get(row.product_id);
    if (!product) {
      product = { id: row.product_id, name: row.product.name, values: dates.map(() => 0), total: 0 };
      products.set(row.product_id, product);
    }
    product.values[index] = (product.values[index] ?? 0) + row.credits_used;
    product.total += row.credits_used;
  }
  return { dates, products: [...products.values()].sort((a, b) => a.id - b.id) };
}

/** The dates with any usage, newest first: the rows of the numbers table. */
export function datesWithUsage(series: UsageSeries): Array<{ date: string; values: number[] }> {
  return series.dates
    .map((date, index) => ({ date, values: series.products.map((product) => product.values[index] ?? 0) }))
    .filter((day) => day.values.some((value) => value > 0))
    .reverse();
}
