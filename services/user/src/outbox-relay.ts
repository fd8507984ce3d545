import type pg from 'pg';
import { extractTraceContext, inSpan, SpanKind, startWorkerLoop, type Logger, type WorkerLoop } from '@platform/runtime';
import { InvalidEventError, type EventBus, type EventName } from '@platform/events';
import { claimPendingEvents, markEventFailed, markEventsPublished, releaseEvents, type ClaimedEvent } from './store/outbox';

export interface OutboxRelayOptions {
  pool: pg.Pool;
  bus: EventBus;
  logger: Logger;
  /** Pause between looks at an empty outbox when nothing wakes the relay. */
  pollMs: number;
  /** How long a wake() waits for others before the relay looks (see WorkerLoopOptions.wakeDelayMs). Default 0. */
  wakeDelayMs?: number;
  /** Backoff after a failed publish or database error: initial, doubling up to max (with jitter). */
  retryInitialMs: number;
  retryMaxMs: number;
  /** Events claimed per round. Default 100. */
  batchSize?: number;
  /** How long a claim keeps other relays off a batch. Default 60 s. */
  leaseMs?: number;
}

/**
 * wake(): look at the outbox now (a local balance change committed) instead of at the next poll.
 * stop(): finishes the publishes in flight, gives the rest of the batch back, stops.
 */
export type OutboxRelay = WorkerLoop;

/**
 * The transactional outbox's relay (CONTRACT §6): publishes unpublished `outbox_events` rows in
 * `seq` order, each confirmed by the broker before it is marked published. RabbitMQ down or no
 * queue bound: the rows stay and are retried with backoff, in order. A row the bus refuses as
 * invalid is marked failed and skipped. The confirmed events of a claimed batch are marked
 * published together, in one statement (one commit per batch, not one per event: the usage API
 * writes an event per pool per batch, thousands a second). Delivery is at least once: a crash
 * between the confirms and the mark publishes those events again (consumers deduplicate by
 * event id). A batch's first event is published alone and the rest together (see publishBatch).
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { pool, bus, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const leaseMs = options.leaseMs ?? 60_000;

  /** One event to the bus, as part of the trace of the request that wrote it. */
  const publish = (event: ClaimedEvent): Promise<void> =>
    inSpan(
      '@platform/user',
      `${event.routingKey} publish`,
      {
        kind: SpanKind.PRODUCER,
        parent: extractTraceContext({ traceparent: event.traceparent }),
        attributes: { 'outbox.event_id': event.id },
      },
      () => bus.publish(event.routingKey as EventName, event.payload),
    );

  /**
   * Publishes a claimed batch in order; true when the batch was full (more may be waiting). The
   * first event goes alone: while the broker refuses, nothing after it goes out, so a retry
   * neither repeats nor reorders anything. Once it is confirmed, the rest go out together, in
   * order, and their confirms are awaited together (one round trip to the broker, not one per
   * event). When one of those fails, it and everything after it are given back, confirmed or
   * not: they are published again (at least once; consumers deduplicate by event id and take
   * an older change as stale).
   */
  const publishBatch = async (batch: ClaimedEvent[], stopping: AbortSignal): Promise<boolean> => {
    const confirmed: string[] = [];
    // The confirmed events are marked published before the rest of the batch is given back.
    const giveBack = async (rest: ClaimedEvent[]): Promise<void> => {
      await markEventsPublished(pool, confirmed);
      await releaseEvents(
        pool,
        rest.map((event) => event.id),
      );
    };
    // The first event alone, then the rest together.
    for (const [from, to] of [
      [0, 1],
      [1, batch.length],
    ] as const) {
      if (from >= batch.length) break;
      if (stopping.aborted) {
        await giveBack(batch.slice(from));
        return false;
      }
      const results = await Promise.allSettled(batch.slice(from, to).map(publish));
      for (const [offset, result] of results.entries()) {
        const index = from + offset;
        const event = batch[index] as ClaimedEvent;
        if (result.status === 'fulfilled') {
          confirmed.push(event.id);
          continue;
        }
        const error: unknown = result.reason;
        if (error instanceof InvalidEventError) {
          logger.error('outbox event can never be published; marked failed', { eventId: event.id, seq: event.seq, error: error.message });
          await markEventFailed(pool, event.id, error.message.slice(0, 2000));
          continue;
        }
        // Broker down, no confirm, or no queue bound: keep this event and the ones after it, in order.
        await giveBack(batch.slice(index));
        throw new PublishFailed(event.id, batch.length - index, error);
      }
    }
    await markEventsPublished(pool, confirmed);
    return batch.length === batchSize;
  };

  return startWorkerLoop({
    name: 'outbox relay',
    pollMs: options.pollMs,
    wakeDelayMs: options.wakeDelayMs ?? 0,
    backoff: { initialMs: options.retryInitialMs, maxMs: options.retryMaxMs },
    logger,
    work: async (stopping) => {
      const batch = await claimPendingEvents(pool, batchSize, leaseMs);
      return batch.length > 0 && (await publishBatch(batch, stopping));
    },
    failure: (error) =>
      error instanceof PublishFailed
        ? { message: 'outbox publish failed, will retry', fields: { eventId: error.eventId, pending: error.pending, error: error.message } }
        : // Postgres unreachable: claims left behind expire with their lease.
          { message: 'outbox relay database error, will retry', fields: { error: error instanceof Error ? error.message : String(error) } },
    recovered: 'outbox relay publishing again',
  });
}

/** A publish the broker did not confirm: the event and the `pending - 1` after it wait for the next round. */
class PublishFailed extends Error {
  constructor(
    readonly eventId: string,
    readonly pending: number,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'PublishFailed';
  }
}
