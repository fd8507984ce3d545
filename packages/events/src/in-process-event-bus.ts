import { injectTraceContext, type Logger } from '@platform/runtime';
import {
  backoffMs,
  DEFAULT_PREFETCH,
  deadLetterQueueOf,
  handleInSpan,
  handleMessage,
  EventBusUnavailableError,
  parseMessage,
  PoisonMessageError,
  UnroutableEventError,
  validateMessage,
  type ConsumeOptions,
  type EventBus,
  type EventHandler,
  type EventName,
  type Subscription,
} from './event-bus';

export interface InProcessEventBusOptions {
  logger?: Logger;
  /** Delay before a failed handler is retried; doubles per failure of that message. Defaults 200 ms … 30 s. */
  retryInitialMs?: number;
  retryMaxMs?: number;
}

/** The in-process bus, plus what the embedded quickstart and tests may inspect. */
export interface InProcessEventBus extends EventBus {
  /** Raw payloads dead-lettered from a queue (handler said poison, or the payload failed validation). */
  deadLetters(queue: string): unknown[];
}

interface Message {
  /** Serialized, as on the wire: consumers never share objects with the publisher. */
  body: string;
  routingKey: string;
  failures: number;
  /** The publisher's trace context (W3C), as AMQP headers carry it. */
  headers: Record<string, string>;
}

interface Queue {
  name: string;
  bindingKey: EventName;
  deadLetterQueue: string;
  messages: Message[];
  consumer: { handler: EventHandler<unknown>; prefetch: number; inFlight: Set<Promise<void>> } | undefined;
}

/**
 * The embedded quickstart's bus (`pnpm start` without `AMQP_URL`): same contract as the
 * RabbitMQ bus within one process. Queues outlive their consumers (a restarted consumer gets
 * what was published meanwhile), delivery is asynchronous and at least once, a failing handler
 * is retried with backoff, poison messages are dead-lettered. Nothing survives the process.
 */
export function createInProcessEventBus(options: InProcessEventBusOptions = {}): InProcessEventBus {
  const retryInitialMs = options.retryInitialMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 30_000;
  const queues = new Map<string, Queue>();
  const deadLetters = new Map<string, unknown[]>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const deadLetter = (queue: Queue, message: Message, reason: string): void => {
    const list = deadLetters.get(queue.deadLetterQueue) ?? [];
    list.push(JSON.parse(message.body) as unknown);
    deadLetters.set(queue.deadLetterQueue, list);
    options.logger?.warn('poison message dead-lettered', { queue: queue.name, deadLetterQueue: queue.deadLetterQueue, reason });
  };

  const deliver = async (queue: Queue, message: Message, handler: EventHandler<unknown>): Promise<void> => {
    let events: Array<{ id: string }>;
    try {
      events = parseMessage(queue.bindingKey, message.body);
    } catch (error) {
      deadLetter(queue, message, error instanceof Error ? error.message.slice(0, 500) : String(error));
      return;
    }
    try {
      await handleInSpan({ queue: queue.name, routingKey: message.routingKey, headers: message.headers }, () =>
        handleMessage(events, handler, { routingKey: message.routingKey, redelivered: message.failures > 0 }),
      );
    } catch (error) {
      if (error instanceof PoisonMessageError) {
        deadLetter(queue, message, error.message);
        return;
      }
      message.failures += 1;
      const delay = backoffMs(message.failures, retryInitialMs, retryMaxMs);
      options.logger?.warn('handler failed, message requeued', {
        queue: queue.name,
        eventId: events[0]?.id,
        events: events.length,
        attempt: message.failures,
        delayMs: delay,
        error,
      });
      const timer = setTimeout(() => {
        timers.delete(timer);
        queue.messages.unshift(message);
        pump(queue);
      }, delay);
      timers.add(timer);
    }
  };

  function pump(queue: Queue): void {
    const consumer = queue.consumer;
    if (!consumer) return;
    while (consumer.inFlight.size < consumer.prefetch && queue.messages.length > 0) {
      const message = queue.messages.shift() as Message;
      const task = deliver(queue, message, consumer.handler).finally(() => {
        consumer.inFlight.delete(task);
        setImmediate(() => pump(queue));
      });
      consumer.inFlight.add(task);
    }
  }

  const cancelConsumer = async (queue: Queue): Promise<void> => {
    const consumer = queue.consumer;
    if (!consumer) return;
    queue.consumer = undefined;
    await Promise.allSettled([...consumer.inFlight]);
  };

  return {
    publish(routingKey, payload) {
      if (closed) return Promise.reject(new EventBusUnavailableError('event bus closed'));
      try {
        const message = validateMessage(routingKey, payload);
        const bound = [...queues.values()].filter((queue) => queue.bindingKey === routingKey);
        if (bound.length === 0) return Promise.reject(new UnroutableEventError(`no queue is bound for ${routingKey}`));
        const body = JSON.stringify(message.body);
        for (const queue of bound) {
          queue.messages.push({ body, routingKey, failures: 0, headers: injectTraceContext() });
          setImmediate(() => pump(queue));
        }
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },

    consume(name, bindingKey, handler, consumeOptions: ConsumeOptions = {}): Subscription {
      if (closed) throw new EventBusUnavailableError('event bus closed');
      const queue = queues.get(name) ?? {
        name,
        bindingKey,
        deadLetterQueue: deadLetterQueueOf(name, consumeOptions),
        messages: [],
        consumer: undefined,
      };
      if (queue.bindingKey !== bindingKey) throw new Error(`queue ${name} is bound to ${queue.bindingKey}`);
      if (queue.consumer) throw new Error(`queue ${name} already has a consumer`);
      queue.consumer = {
        handler: handler as EventHandler<unknown>,
        prefetch: consumeOptions.prefetch ?? DEFAULT_PREFETCH,
        inFlight: new Set(),
      };
      const consumer = queue.consumer;
      queues.set(name, queue);
      setImmediate(() => pump(queue));
      let cancelled: Promise<void> | undefined;
      return {
        ready: Promise.resolve(),
        isActive: () => queue.consumer === consumer,
        cancel: () => (cancelled ??= queue.consumer === consumer ? cancelConsumer(queue) : Promise.resolve()),
        deadLetterDepth: () => Promise.resolve(deadLetters.get(queue.deadLetterQueue)?.length ?? 0),
      };
    },

    ping: () => (closed ? Promise.reject(new EventBusUnavailableError('event bus closed')) : Promise.resolve()),

    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all([...queues.values()].map((queue) => cancelConsumer(queue)));
    },

    deadLetters: (queue) => [...(deadLetters.get(queue) ?? [])],
  };
}
