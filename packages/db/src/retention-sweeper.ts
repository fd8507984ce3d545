import type pg from 'pg';
import { errorMessage, startWorkerLoop, type Logger } from '@platform/runtime';
import type { Queryable } from './pool';

export interface RetentionSweeperOptions {
  /** What it sweeps, for its log lines ("usage request": "usage request sweep failed, will retry"). */
  name: string;
  pool: pg.Pool;
  logger: Logger;
  /** Age past which a row goes. */
  retentionMs: number;
  /** Pause between sweeps. */
  intervalMs: number;
  /** Rows per DELETE statement, so that no statement holds many locks or runs long. Default 5000. */
  batchSize?: number;
  /** Deletes up to `limit` rows older than `retentionMs`, oldest first; resolves with how many. */
  deleteExpired(db: Queryable, retentionMs: number, limit: number): Promise<number>;
}

export interface RetentionSweeper {
  /** Deletes every expired row now, in batches; resolves with how many. */
  sweep(): Promise<number>;
  /** Finishes the statement in flight and stops. */
  stop(): Promise<void>;
}

/**
 * Keeps a table bounded: every `intervalMs` it deletes the rows older than the retention,
 * `batchSize` at a time, until none is left. Under a constant load the table holds about
 * rate × (retention + interval) rows. A database error is logged and the next sweep tries again.
 */
export function startRetentionSweeper(options: RetentionSweeperOptions): RetentionSweeper {
  const batchSize = options.batchSize ?? 5000;
  const stopping = new AbortController();

  const sweep = async (): Promise<number> => {
    let deleted = 0;
    for (;;) {
      const count = await options.deleteExpired(options.pool, options.retentionMs, batchSize);
      deleted += count;
      if (count < batchSize || stopping.signal.aborted) return deleted;
    }
  };

  const loop = startWorkerLoop({
    name: `${options.name} sweeper`,
    pollMs: options.intervalMs,
    // A failed sweep is tried again at the next interval.
    backoff: { initialMs: options.intervalMs, maxMs: options.intervalMs },
    delayFirst: true,
    logger: options.logger,
    signal: stopping.signal,
    work: async () => {
      await sweep();
      return false;
    },
    failure: (error) => ({
      message: `${options.name} sweep failed, will retry`,
      fields: { error: errorMessage(error) },
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
