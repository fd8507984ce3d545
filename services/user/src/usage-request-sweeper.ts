import type pg from 'pg';
import type { Logger } from '@platform/runtime';
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
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  const sweep = async (): Promise<number> => {
    let deleted = 0;
    for (;;) {
      const count = await deleteExpiredUsageRequests(options.pool, options.retentionMs, batchSize);
      deleted += count;
      if (count < batchSize || stopping) return deleted;
    }
  };

  const tick = (): void => {
    running = sweep()
      .catch((error: unknown) => {
        options.logger.warn('usage request sweep failed, will retry', { error: error instanceof Error ? error.message : String(error) });
        return 0;
      })
      .finally(() => {
        running = undefined;
        if (!stopping) timer = setTimeout(tick, options.intervalMs);
      });
  };
  timer = setTimeout(tick, options.intervalMs);

  return {
    sweep,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
