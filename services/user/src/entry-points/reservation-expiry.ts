import { errorMessage, startWorkerLoop, type Logger } from '@platform/runtime';
import type { Reservations, ReservationStore } from '../domain/reservations';

/** Reservations one round releases; a full round goes on at once. */
const ROUND = 100;

/**
 * The expiry sweeper (CONTRACT §7.1): every `intervalMs` (at most 50 s, so that a reservation is
 * returned within 60 s after its `expiresAt`), every held reservation past it is released, each
 * in a transaction of its own that locks its row: replicas sweeping at once, or a settle arriving
 * meanwhile, end it once.
 */
export function startReservationExpirySweeper(options: {
  reservations: Reservations;
  store: Pick<ReservationStore, 'due'>;
  logger: Logger;
  intervalMs: number;
}) {
  const { reservations, store, logger, intervalMs } = options;
  return startWorkerLoop({
    name: 'reservation expiry sweeper',
    pollMs: intervalMs,
    backoff: { initialMs: intervalMs, maxMs: intervalMs },
    logger,
    work: async () => {
      const due = await store.due(ROUND);
      let expired = 0;
      for (const id of due) if (await reservations.expire(id)) expired += 1;
      if (expired > 0) logger.info('expired reservations released', { reservations: expired });
      return due.length === ROUND;
    },
    failure: (error) => ({ message: 'reservation expiry sweep failed, will retry', fields: { error: errorMessage(error) } }),
  });
}
