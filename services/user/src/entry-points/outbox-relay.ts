import { errorMessage, extractTraceContext, inSpan, SpanKind, startWorkerLoop, type Logger, type WorkerLoop } from '@platform/runtime';
import { InvalidEventError, type EventBus, type EventName } from '@platform/events';
import type { ClaimedMessage, OutboxStore } from '../domain/outbox';

export interface OutboxRelayOptions {
  /** The outbox (store/outbox.ts, createOutboxStore). */
  outbox: OutboxStore;
  bus: EventBus;
  logger: Logger;
  /** Pause between looks at an empty outbox when nothing wakes the relay. */
  pollMs: number;
  /** How long a wake() waits for others before the relay looks (see WorkerLoopOptions.wakeDelayMs). Default 0. */
  wakeDelayMs?: number;
  /** Backoff after a failed publish or database error: initial, doubling up to max (with jitter). */
  retryInitialMs: number;
  retryMaxMs: number;
  /** Messages (outbox rows, each the events of one commit) claimed per round. Default 100. */
  batchSize?: number;
  /**
   * Largest message body, in bytes, the relay publishes with several events: a row whose events
   * serialize to more is published as several messages, each within it (an event larger on its
   * own goes alone). Default DEFAULT_MAX_MESSAGE_BYTES.
   */
  maxMessageBytes?: number;
  /** How long a claim keeps other relays off a batch. Default 60 s. */
  leaseMs?: number;
}

/**
 * wake(): look at the outbox now (a local balance change committed) instead of at the next poll.
 * stop(): finishes the publishes in flight, gives the rest of the batch back, stops.
 */
export type OutboxRelay = WorkerLoop;

/** 64 KiB: about 280 balance.changed events, a usage batch over that many pools; see docs/architecture.md. */
export const DEFAULT_MAX_MESSAGE_BYTES = 65_536;

/**
 * A row's events as message bodies of at most `maxBytes` each (JSON array: brackets and commas
 * counted), in order. One event is published as the object; several as the array.
 */
export function splitMessage(events: readonly unknown[], maxBytes: number): unknown[] {
  if (events.length === 1) return [events[0]];
  const bodies: unknown[][] = [];
  let current: unknown[] = [];
  let size = 2;
  for (const event of events) {
    const bytes = Buffer.byteLength(JSON.stringify(event));
    // size: the body so far with its brackets; one comma before every event but a body's first.
    if (current.length > 0 && size + 1 + bytes > maxBytes) {
      bodies.push(current);
      current = [];
      size = 2;
    }
    size += (current.length > 0 ? 1 : 0) + bytes;
    current.push(event);
  }
  bodies.push(current);
  return bodies.map((body) => (body.length === 1 ? body[0] : body));
}

/**
 * The transactional outbox's relay (CONTRACT §6): publishes unpublished `outbox_events` rows in
 * `seq` order. A row is one message: the events of one commit (a usage batch's, an admin
 * change's), published as one persistent message whose body is the JSON array of its events
 * (one event: the object), split only when it would exceed `maxMessageBytes`. A row is marked
 * published once the broker confirmed every message of it. RabbitMQ down or no queue bound: the
 * rows stay and are retried with backoff, in order. A row the bus refuses as invalid is marked
 * failed and skipped. The confirmed rows of a claimed batch are marked published together, in
 * one statement. Delivery is at least once: a crash between the confirms and the mark publishes
 * those rows again (consumers deduplicate by event id). A batch's first row is published alone
 * and the rest together (see publishBatch).
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { outbox, bus, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const leaseMs = options.leaseMs ?? 60_000;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;

  /** One message to the bus, as part of the trace of the request that wrote it. */
  const publishOne = (row: ClaimedMessage, body: unknown): Promise<void> =>
    inSpan(
      '@platform/user',
      `${row.routingKey} publish`,
      {
        kind: SpanKind.PRODUCER,
        parent: extractTraceContext({ traceparent: row.traceparent }),
        attributes: { 'outbox.event_id': row.id, 'outbox.events': Array.isArray(body) ? body.length : 1 },
      },
      () => bus.publish(row.routingKey as EventName, body),
    );

  /** A row's messages (one unless split), confirmed together; rejects with a transient error before an invalid one. */
  const publish = async (row: ClaimedMessage): Promise<void> => {
    const results = await Promise.allSettled(splitMessage(row.events, maxMessageBytes).map((body) => publishOne(row, body)));
    const errors = results.flatMap((result) =>
      result.status === 'rejected' ? [result.reason instanceof Error ? result.reason : new Error(String(result.reason))] : [],
    );
    const failure = errors.find((error) => !(error instanceof InvalidEventError)) ?? errors[0];
    if (failure) throw failure;
  };

  /**
   * Publishes a claimed batch in order; true when the batch was full (more may be waiting). The
   * first row goes alone: while the broker refuses, nothing after it goes out, so a retry
   * neither repeats nor reorders anything. Once it is confirmed, the rest go out together, in
   * order, and their confirms are awaited together (one round trip to the broker, not one per
   * message). When one of those fails, it and everything after it are given back, confirmed or
   * not: they are published again, with the ids they were written with (at least once;
   * consumers deduplicate by event id).
   */
  const publishBatch = async (batch: ClaimedMessage[], stopping: AbortSignal): Promise<boolean> => {
    const confirmed: string[] = [];
    // The confirmed rows are marked published before the rest of the batch is given back.
    const giveBack = async (rest: ClaimedMessage[]): Promise<void> => {
      await outbox.markPublished(confirmed);
      await outbox.release(rest.map((row) => row.id));
    };
    // The first row alone, then the rest together.
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
        const row = batch[index] as ClaimedMessage;
        if (result.status === 'fulfilled') {
          confirmed.push(row.id);
          continue;
        }
        const error: unknown = result.reason;
        if (error instanceof InvalidEventError) {
          logger.error('outbox message can never be published; marked failed', {
            eventId: row.id,
            seq: row.seq,
            events: row.events.length,
            error: error.message,
          });
          await outbox.markFailed(row.id, error.message.slice(0, 2000));
          continue;
        }
        // Broker down, no confirm, or no queue bound: keep this row and the ones after it, in order.
        await giveBack(batch.slice(index));
        throw new PublishFailed(row.id, batch.length - index, error);
      }
    }
    await outbox.markPublished(confirmed);
    return batch.length === batchSize;
  };

  return startWorkerLoop({
    name: 'outbox relay',
    pollMs: options.pollMs,
    wakeDelayMs: options.wakeDelayMs ?? 0,
    backoff: { initialMs: options.retryInitialMs, maxMs: options.retryMaxMs },
    logger,
    work: async (stopping) => {
      const batch = await outbox.claim(batchSize, leaseMs);
      return batch.length > 0 && (await publishBatch(batch, stopping));
    },
    failure: (error) =>
      error instanceof PublishFailed
        ? { message: 'outbox publish failed, will retry', fields: { eventId: error.eventId, pending: error.pending, error: error.message } }
        : // Postgres unreachable: claims left behind expire with their lease.
          { message: 'outbox relay database error, will retry', fields: { error: errorMessage(error) } },
    recovered: 'outbox relay publishing again',
  });
}

/** A publish the broker did not confirm: the row (message) and the `pending - 1` after it wait for the next round. */
class PublishFailed extends Error {
  constructor(
    readonly eventId: string,
    readonly pending: number,
    cause: unknown,
  ) {
    super(errorMessage(cause), { cause });
    this.name = 'PublishFailed';
  }
}
