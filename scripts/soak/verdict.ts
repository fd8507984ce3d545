/** One reading of the soaked process, taken at the end of each interval. */
export interface Sample {
  /** Seconds since the load started. */
  atSeconds: number;
  rssMb: number;
  /** The live JS heap after a full collection, MB. */
  heapUsedMb: number;
  /** Median event-loop delay over the interval, milliseconds. */
  loopDelayMs: number;
  /** Handles keeping the loop alive (sockets, timers, …): process.getActiveResourcesInfo(). */
  openHandles: number;
  /** Connections to the soak's database (pg_stat_activity). */
  pgConnections: number;
}

export type Metric = Exclude<keyof Sample, 'atSeconds'>;

export const METRICS: readonly Metric[] = ['rssMb', 'heapUsedMb', 'loopDelayMs', 'openHandles', 'pgConnections'];

/**
 * Growth allowed on top of 10 %, so that a reading's natural jitter (one more pooled connection
 * out of 12, a millisecond of delay) is not taken for a leak. RSS after a full collection swings
 * by about 45 MB between readings of a steady load with no trend (147–193 MB within one minute
 * under Node 22: freed pages the allocator keeps, the young generation's resizing), so it only
 * catches a gross native leak in a short run; the live heap after the collection (`heapUsedMb`,
 * never more than 1 MB above its first reading there) is the strict check of a JS leak.
 */
export const ABSOLUTE_SLACK: Record<Metric, number> = { rssMb: 48, heapUsedMb: 0, loopDelayMs: 2, openHandles: 4, pgConnections: 2 };

export interface Finding {
  metric: Metric;
  baseline: number;
  last: number;
  limit: number;
  grew: boolean;
}

/** How many of the last readings make up the value a metric ends at (their median). */
export const END_READINGS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * The soak's rule: after the first interval (warm-up: pools fill, code is compiled), no metric
 * may end more than 10 % above its value at the end of that interval (plus ABSOLUTE_SLACK). A
 * metric ends at the median of its last three readings after the first, so that one interval
 * in which the machine was busy with something else is not taken for growth; a leak, which
 * grows steadily, moves the median as well.
 */
export function judge(samples: readonly Sample[], options: { pgPoolCapacity?: number } = {}): Finding[] {
  const first = samples[0];
  if (first === undefined || samples.length < 2) throw new Error('a soak needs at least two samples');
  const ending = samples.slice(1).slice(-END_READINGS);
  return METRICS.map((metric) => {
    const relative = first[metric] * 1.1 + ABSOLUTE_SLACK[metric];
    // Pooled connections open with the load's bursts and close only after the pools' idle
    // timeout (30 s), which a short run's first interval may not have seen: within what the
    // pools may hold, a count is the pools at work, not a leak. A leak (a pool or client
    // outside them) goes beyond it.
    const limit =
      metric === 'pgConnections' && options.pgPoolCapacity !== undefined ? Math.max(relative, options.pgPoolCapacity) : relative;
    const last = median(ending.map((sample) => sample[metric]));
    return { metric, baseline: first[metric], last, limit, grew: last > limit };
  });
}

/** What `pnpm admin verify-ledger` found (services/user/src/store/ledger-verification.ts). */
export interface LedgerReport {
  pools: number;
  differences: ReadonlyArray<{ accountId: number; poolId: number; credits: number; expected: number }>;
}

/**
 * The soak's accounting (CONTRACT §7.1): after the load, every pool's credits must equal its
 * ledger (top-ups and adjustments minus charges and open holds). One line per difference; none
 * when the ledger is clean. A soak that checked no pool has checked nothing: that fails too.
 */
export function judgeLedger(report: LedgerReport): string[] {
  if (report.pools === 0) return ['verify-ledger checked no pool'];
  return report.differences.map(
    (difference) =>
      `account ${difference.accountId} pool ${difference.poolId}: credits ${difference.credits}, ledger ${difference.expected}`,
  );
}
