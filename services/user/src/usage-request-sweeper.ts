import type pg from 'pg';
import { startWorkerLoop, type Logger } from '@platform/runtime';
import { deleteExpiredUsageRequests } from './store/usage-requests';

export interface UsageRequestSweeperOptions {
  pool: pg.Pool;
  logger: Logger;
  /** Age past which a requestId's answer is forgotten (CONTRACT §9: at least 24 hours). */
  retentionMs: number;
  /** Pause between sweeps. */
  intervalMs: number;
  /** Rows per DELETE statement, so that no statement holds many locks or runs long. Default 5000. */
  batchSize?: number;
}

export interface UsageRequestSweeper {
  /** Deletes every expired row now, in batches; resolves with how many. */
  sweep(): Promise<number>;
  /** Finishes the statement in flight and stops. */
  stop(): Promise<void>;
}

/**
 * Keeps usage_requests bounded: every `intervalMs` it deletes the rows older than the
 * retention, `batchSize` at a time, until none is left. Under a constant load the table holds
 * about rate × (retention + interval) rows. A database error is logged and the next sweep
 * tries again.
 */
export function startUsageRequestSweeper(options: UsageRequestSweeperOptions): UsageRequestSweeper {
  const batchSize = options.batchSize ?? 5000;
  const stopping = new AbortController();

  const sweep = async (): Promise<number> => {
    let deleted = 0;
    for (;;) {
      const count = await deleteExpiredUsageRequests(options.pool, options.retentionMs, batchSize);
      deleted += count;
      if (count < batchSize || stopping.signal.aborted) return deleted;
    }
  };

  const loop = startWorkerLoop({
    name: 'usage request sweeper',
    pollMs: options.intervalMs,
    // A failed sweep is tried again at the next interval, as before.
    backoff: { initialMs: options.intervalMs, maxMs: options.intervalMs },
    delayFirst: true,
    logger: options.logger,
    signal: stopping.signal,
    work: async () => {
      await sweep();
      return false;
    },
    failure: (error) => ({
      message: 'usage request sweep failed, will retry',
      fields: { error: error instanceof Error ? error.message : String(error) },
    }),
  });

  return {
    sweep,
    stop() {
      stopping.abort();
      return loop.stop();
    },
  };
}
