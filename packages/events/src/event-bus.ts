import type { z } from 'zod';
import { continuedFrom, inSpan, SpanKind } from '@platform/runtime';
import { BALANCE_CHANGED, balanceChangedSchema } from './balance-changed';

/** Every event the buses carry, by routing key, with the schema publisher and consumer validate. */
export const eventSchemas = {
  [BALANCE_CHANGED]: balanceChangedSchema,
} as const;

export type EventName = keyof typeof eventSchemas;
export type EventPayload<K extends EventName> = z.infer<(typeof eventSchemas)[K]>;

export function isEventName(value: string): value is EventName {
  return Object.hasOwn(eventSchemas, value);
}

/** How a message reached the handler. */
export interface Delivery {
  routingKey: string;
  /** True when an earlier delivery of this message was not acknowledged (crash, failed handler). */
  redelivered: boolean;
}

/**
 * Handles one validated event. Resolving acknowledges the message; throwing a
 * `PoisonMessageError` dead-letters it; any other error requeues it after a delay.
 */
export type EventHandler<T> = (event: T, delivery: Delivery) => Promise<void>;

export interface ConsumeOptions {
  /** Deliveries in flight at once for this consumer (AMQP prefetch). Default 10. */
  prefetch?: number;
  /** Queue that receives poison messages. Default `<queue>.dead`. */
  deadLetterQueue?: string;
  /**
   * Deliveries of one message before the broker dead-letters it (quorum queue `x-delivery-limit`):
   * a handler that keeps failing is retried with backoff (500 ms doubling to 30 s), so the default
   * 50 keeps a message about 25 minutes. Changing it re-creates the queue (declareQuorumQueue).
   */
  deliveryLimit?: number;
}

/** A running consumer. */
export interface Subscription {
  /** Resolves once the consumer is attached for the first time (queue declared and bound). */
  readonly ready: Promise<void>;
  /** True while the consumer is attached (false while the broker is unreachable). */
  isActive(): boolean;
  /** Stops new deliveries, waits for the handlers in flight, detaches. Safe to call twice. */
  cancel(): Promise<void>;
  /** Messages waiting in the dead-letter queue; rejects while the broker is unreachable. */
  deadLetterDepth(): Promise<number>;
}

/**
 * The event port: RabbitMQ in the services (`createAmqpEventBus`), an in-process bus in the
 * embedded quickstart (`createInProcessEventBus`). Delivery is at least once: consumers must
 * be idempotent (events carry a unique `id`).
 */
export interface EventBus {
  /**
   * Validates the payload against the routing key's schema and publishes it persistently.
   * Resolves only once the message is safely stored (AMQP: the broker confirmed it and some
   * queue took it); rejects with `InvalidEventError`, `EventBusUnavailableError` or
   * `UnroutableEventError` otherwise, so that a caller (the outbox relay) can retry.
   */
  publish(routingKey: EventName, payload: unknown): Promise<void>;
  /**
   * Declares a durable queue bound to `bindingKey` and its dead-letter queue (on RabbitMQ: quorum
   * queues, with a delivery limit) and consumes it.
   */
  consume<K extends EventName>(
    queue: string,
    bindingKey: K,
    handler: EventHandler<EventPayload<K>>,
    options?: ConsumeOptions,
  ): Subscription;
  /** Readiness: resolves while connected. */
  ping(): Promise<void>;
  /** Cancels every consumer (draining handlers in flight), waits for pending confirms, disconnects. */
  close(): Promise<void>;
}

export const DEFAULT_PREFETCH = 10;
export const DEFAULT_DELIVERY_LIMIT = 50;

export function deadLetterQueueOf(queue: string, options: ConsumeOptions): string {
  return options.deadLetterQueue ?? `${queue}.dead`;
}

/** Thrown by a handler for a message that can never succeed: it goes to the dead-letter queue. */
export class PoisonMessageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PoisonMessageError';
  }
}

/** The payload does not match the routing key's schema (or the routing key is unknown). */
export class InvalidEventError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidEventError';
  }
}

/** The broker is unreachable or did not confirm the message: it may or may not be stored. Retry. */
export class EventBusUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventBusUnavailableError';
  }
}

/** No queue is bound for the routing key, so the broker would have dropped the message. Retry later. */
export class UnroutableEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnroutableEventError';
  }
}

/** Validates a payload for publishing; throws InvalidEventError. */
export function validateEvent<K extends EventName>(routingKey: K, payload: unknown): EventPayload<K> {
  if (!isEventName(routingKey)) throw new InvalidEventError(`unknown event ${String(routingKey)}`);
  const result = eventSchemas[routingKey].safeParse(payload);
  if (!result.success) throw new InvalidEventError(`invalid ${routingKey} payload: ${result.error.message}`, { cause: result.error });
  return result.data;
}

/** Exponential backoff: base · 2^(attempt-1), capped. attempt starts at 1. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}

/**
 * Runs a consumer's handling of one message in a span that continues the publisher's trace
 * (W3C `traceparent` in the message headers); a no-op span when tracing is off.
 */
export function handleInSpan<T>(
  delivery: { queue: string; routingKey: string; headers: Readonly<Record<string, unknown>> | undefined },
  fn: () => Promise<T>,
): Promise<T> {
  return inSpan(
    '@platform/events',
    `${delivery.routingKey} process`,
    {
      kind: SpanKind.CONSUMER,
      parent: continuedFrom(delivery.headers),
      attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': delivery.queue, 'messaging.operation.type': 'process' },
    },
    fn,
  );
}
