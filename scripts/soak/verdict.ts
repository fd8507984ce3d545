/** One reading of the soaked process, taken at the end of each interval. */
export interface Sample {
  /** Seconds since the load started. */
  atSeconds: number;
  rssMb: number;
  /** Median event-loop delay over the interval, milliseconds. */
  loopDelayMs: number;
  /** Handles keeping the loop alive (sockets, timers, …): process.getActiveResourcesInfo(). */
  openHandles: number;
  /** Connections to the soak's database (pg_stat_activity). */
  pgConnections: number;
}

export type Metric = Exclude<keyof Sample, 'atSeconds'>;

export const METRICS: readonly Metric[] = ['rssMb', 'loopDelayMs', 'openHandles', 'pgConnections'];

/**
 * Growth allowed on top of 10 %, so that a small count's natural jitter (one more pooled
 * connection out of 12, a millisecond of delay) is not taken for a leak.
 */
export const ABSOLUTE_SLACK: Record<Metric, number> = { rssMb: 0, loopDelayMs: 2, openHandles: 4, pgConnections: 2 };

export interface Finding {
  metric: Metric;
  baseline: number;
  last: number;
  limit: number;
  grew: boolean;
}

/**
 * The soak's rule: after the first interval (warm-up: pools fill, code is compiled), no metric
 * may end more than 10 % above its value at the end of that interval (plus ABSOLUTE_SLACK).
 */
export function judge(samples: readonly Sample[]): Finding[] {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined || samples.length < 2) throw new Error('a soak needs at least two samples');
  return METRICS.map((metric) => {
    const limit = first[metric] * 1.1 + ABSOLUTE_SLACK[metric];
    return { metric, baseline: first[metric], last: last[metric], limit, grew: last[metric] > limit };
  });
}
