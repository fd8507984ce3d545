import { errorMessage as message, startWorkerLoop, type Logger } from '@platform/runtime';
import type { AccessRepairs } from '../domain/access-repairs';

/**
 * The access repair sweeper: at start, then every `intervalMs`, the accounts whose access records
 * a killed process left unsettled are rewritten from Postgres (AccessRepairs.sweep).
 */
export function startAccessRepairSweeper(repairs: AccessRepairs, logger: Logger, intervalMs: number) {
  return startWorkerLoop({
    name: 'access repair sweeper',
    pollMs: intervalMs,
    backoff: { initialMs: intervalMs, maxMs: intervalMs },
    logger,
    work: async () => {
      const repaired = await repairs.sweep();
      if (repaired > 0) logger.info('access records repaired from Postgres', { accounts: repaired });
      return false;
    },
    failure: (error) => ({ message: 'access repair sweep failed, will retry', fields: { error: message(error) } }),
  });
}
