import type pg from 'pg';
import { extractTraceContext, inSpan, SpanKind, type Logger } from '@platform/runtime';
import { backoffMs, InvalidEventError, type EventBus, type EventName } from '@platform/events';
import { claimPendingEvents, markEventFailed, markEventsPublished, releaseEvents, type ClaimedEvent } from './store/outbox';

export interface OutboxRelayOptions {
  pool: pg.Pool;
  bus: EventBus;
  logger: Logger;
  /** Pause between looks at an empty outbox when nothing wakes the relay. */
  pollMs: number;
  /** Backoff after a failed publish or database error: initial, doubling up to max. */
  retryInitialMs: number;
  retryMaxMs: number;
  /** Events claimed per round. Default 100. */
  batchSize?: number;
  /** How long a claim keeps other relays off a batch. Default 60 s. */
  leaseMs?: number;
}

export interface OutboxRelay {
  /** Look at the outbox now (a local balance change committed) instead of at the next poll. */
  wake(): void;
  /** Finishes the publish in flight, gives the rest of the batch back, stops. */
  stop(): Promise<void>;
}

type Round = 'drained' | 'more' | 'retry';

/**
 * The transactional outbox's relay (CONTRACT §6): publishes unpublished `outbox_events` rows in
 * `seq` order, each confirmed by the broker before it is marked published. RabbitMQ down or no
 * queue bound: the rows stay and are retried with backoff, in order. A row the bus refuses as
 * invalid is marked failed and skipped. The confirmed events of a claimed batch are marked
 * published together, in one statement (one commit per batch, not one per event: the usage API
 * writes an event per pool per batch, thousands a second). Delivery is at least once: a crash
 * between the confirms and the mark publishes those events again (consumers deduplicate by
 * event id).
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { pool, bus, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const leaseMs = options.leaseMs ?? 60_000;
  const stopping = new AbortController();
  let woken = false;
  let wakeUp: (() => void) | undefined;

  /** Sleeps `ms`; an idle sleep ends early on wake(), every sleep on stop(). */
  const pause = (ms: number, wakeable: boolean): Promise<void> =>
    new Promise((resolve) => {
      if (stopping.signal.aborted || (wakeable && woken)) {
        woken = false;
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        if (wakeUp === done) wakeUp = undefined;
        woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopping.signal.addEventListener('abort', done, { once: true });
      if (wakeable) wakeUp = done;
    });

  const publishBatch = async (batch: ClaimedEvent[]): Promise<Round> => {
    const confirmed: string[] = [];
    // The confirmed events are marked published before the rest of the batch is given back.
    const giveBack = async (rest: ClaimedEvent[]): Promise<void> => {
      await markEventsPublished(pool, confirmed);
      await releaseEvents(
        pool,
        rest.map((event) => event.id),
      );
    };
    for (const [index, event] of batch.entries()) {
      if (stopping.signal.aborted) {
        await giveBack(batch.slice(index));
        return 'drained';
      }
      try {
        // Published as part of the trace of the request that wrote the event.
        await inSpan(
          '@platform/user',
          `${event.routingKey} publish`,
          {
            kind: SpanKind.PRODUCER,
            parent: extractTraceContext({ traceparent: event.traceparent }),
            attributes: { 'outbox.event_id': event.id },
          },
          () => bus.publish(event.routingKey as EventName, event.payload),
        );
      } catch (error) {
        if (error instanceof InvalidEventError) {
          logger.error('outbox event can never be published; marked failed', { eventId: event.id, seq: event.seq, error: error.message });
          await markEventFailed(pool, event.id, error.message.slice(0, 2000));
          continue;
        }
        // Broker down, no confirm, or no queue bound: keep this event and the ones after it, in order.
        await giveBack(batch.slice(index));
        logger.warn('outbox publish failed, will retry', {
          eventId: event.id,
          pending: batch.length - index,
          error: error instanceof Error ? error.message : String(error),
        });
        return 'retry';
      }
      confirmed.push(event.id);
    }
    await markEventsPublished(pool, confirmed);
    return batch.length === batchSize ? 'more' : 'drained';
  };

  const round = async (): Promise<Round> => {
    try {
      const batch = await claimPendingEvents(pool, batchSize, leaseMs);
      return batch.length === 0 ? 'drained' : await publishBatch(batch);
    } catch (error) {
      // Postgres unreachable: claims left behind expire with their lease.
      logger.warn('outbox relay database error, will retry', { error: error instanceof Error ? error.message : String(error) });
      return 'retry';
    }
  };

  const run = async (): Promise<void> => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      const outcome = await round();
      if (outcome === 'retry') {
        failures += 1;
        // Only time ends a backoff: waking on every request would hammer a broker that is down.
        await pause(backoffMs(failures, options.retryInitialMs, options.retryMaxMs), false);
      } else {
        if (failures > 0) logger.info('outbox relay publishing again', { afterFailures: failures });
        failures = 0;
        if (outcome === 'drained') await pause(options.pollMs, true);
      }
    }
  };

  const running = run();
  return {
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
