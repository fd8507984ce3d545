import type { UsageRow } from './api';
import { datesWithUsage, usageSeries, windowDates } from './usage-series';

const row = (date: string, productId: number, name: string, creditsUsed: number): UsageRow => ({
  date,
  product_id: productId,
  product: { id: productId, name },
  credits_used: creditsUsed,
});

describe('usage series', () => {
  const now = new Date('2026-11-24T00:30:00Z');

  it('when the window is 3 days, then it ends with today (UTC) and starts two days before', () => {
    expect(windowDates(3, new Date('2026-03-01T23:59:59Z'))).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });

  it('when some days have no usage, then each product still has a value for every day, 0 on those days', () => {
    const series = usageSeries([row('2026-11-22', 24, 'Bulk WHOIS API', 5), row('2026-11-24', 1, 'WHOIS API', 7)], 3, now);
    expect(series).toEqual({
      dates: ['2026-11-22', '2026-11-23', '2026-11-24'],
      products: [
        { id: 1, name: 'WHOIS API', values: [0, 0, 7], total: 7 },
        { id: 24, name: 'Bulk WHOIS API', values: [5, 0, 0], total: 5 },
      ],
    });
  });

  it('when a row falls outside the window, then it is left out', () => {
    expect(usageSeries([row('2026-11-21', 1, 'WHOIS API', 9)], 3, now).products).toEqual([]);
  });

  it('when the table is made, then it lists the days with usage, newest first', () => {
    const series = usageSeries([row('2026-11-22', 1, 'WHOIS API', 5), row('2026-11-24', 1, 'WHOIS API', 7)], 3, now);
    expect(datesWithUsage(series)).toEqual([
      { date: '2026-11-24', values: [7] },
      { date: '2026-11-22', values: [5] },
    ]);
  });
});
