import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@platform/runtime';
import { declareQuorumQueue } from './amqp-queues';
import {
  backoffMs,
  DEFAULT_DELIVERY_LIMIT,
  DEFAULT_PREFETCH,
  deadLetterQueueOf,
  eventSchemas,
  handleInSpan,
  PoisonMessageError,
  type ConsumeOptions,
  type EventHandler,
  type EventName,
  type EventPayload,
  type Subscription,
} from './event-bus';

/** What the bus and its consumers share. */
export interface Settings {
  /** AMQP_URL's nodes, in order. */
  nodes: string[];
  logger: Logger;
  exchange: string;
  deadLetterExchange: string;
  connectionName: string;
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  publishTimeoutMs: number;
  confirmTimeoutMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  drainTimeoutMs: number;
}

/** Runs an amqplib call on a channel that may already be closed (the message then comes back by redelivery). */
function quietly(action: () => void): void {
  try {
    action();
  } catch {
    // Channel closed: the broker requeues every unacknowledged delivery of that channel.
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...promises]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** One consumer; re-attached on every new connection. */
export class AmqpSubscription implements Subscription {
  readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private channel: Channel | undefined;
  private consumerTag: string | undefined;
  private cancelled = false;
  private cancelling: Promise<void> | undefined;
  private attachedTo: ChannelModel | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly failures = new Map<string, number>();
  private readonly abort = new AbortController();
  readonly deadLetterQueue: string;
  private readonly prefetch: number;
  private readonly deliveryLimit: number;

  constructor(
    private readonly settings: Settings,
    private readonly queue: string,
    private readonly bindingKey: EventName,
    private readonly handler: EventHandler<EventPayload<EventName>>,
    options: ConsumeOptions,
    private readonly onDetached: (subscription: AmqpSubscription) => void,
  ) {
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    this.deadLetterQueue = deadLetterQueueOf(queue, options);
    this.prefetch = options.prefetch ?? DEFAULT_PREFETCH;
    this.deliveryLimit = options.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT;
  }

  isActive(): boolean {
    return this.channel !== undefined && !this.cancelled;
  }

  /** Declares the topology on a fresh channel of `model` and starts consuming. */
  async attach(model: ChannelModel): Promise<void> {
    // Consumers are attached by the connect loop and by consume(); once per connection.
    if (this.cancelled || this.attachedTo === model) return;
    this.attachedTo = model;
    const { exchange, deadLetterExchange } = this.settings;
    const channel = await model.createChannel();
    channel.on('error', (error: Error) =>
      this.settings.logger.warn('amqp consumer channel error', { queue: this.queue, error: error.message }),
    );
    channel.on('close', () => {
      if (this.channel !== channel) return;
      this.channel = undefined;
      this.consumerTag = undefined;
      this.attachedTo = undefined;
      if (!this.cancelled) this.onDetached(this);
    });
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertExchange(deadLetterExchange, 'direct', { durable: true });
    // Quorum queues: replicated over the cluster's nodes, so a consumer moves on with its node.
    const { logger } = this.settings;
    await declareQuorumQueue(
      model,
      this.deadLetterQueue,
      { durable: true, arguments: { 'x-queue-type': 'quorum' } },
      { exchange: deadLetterExchange, key: this.deadLetterQueue },
      logger,
    );
    await declareQuorumQueue(
      model,
      this.queue,
      {
        durable: true,
        arguments: {
          'x-queue-type': 'quorum',
          // A message redelivered this often (its handler kept failing) goes to the dead-letter queue.
          'x-delivery-limit': this.deliveryLimit,
          'x-dead-letter-exchange': deadLetterExchange,
          'x-dead-letter-routing-key': this.deadLetterQueue,
        },
      },
      { exchange, key: this.bindingKey },
      logger,
    );
    await channel.prefetch(this.prefetch);
    this.channel = channel;
    const reply = await channel.consume(this.queue, (message) => this.onMessage(channel, message), { noAck: false });
    this.consumerTag = reply.consumerTag;
    this.settings.logger.info('consuming', { queue: this.queue, bindingKey: this.bindingKey, prefetch: this.prefetch });
    this.resolveReady();
  }

  private onMessage(channel: Channel, message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled the consumer (queue deleted): drop the channel, attach again.
      this.settings.logger.warn('consumer cancelled by the broker', { queue: this.queue });
      void channel.close().catch(() => undefined);
      return;
    }
    const task = this.process(channel, message).catch((error: unknown) => {
      this.settings.logger.error('unexpected consumer failure', { queue: this.queue, error });
    });
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  private async process(channel: Channel, message: ConsumeMessage): Promise<void> {
    const log = this.settings.logger;
    let event: EventPayload<EventName>;
    try {
      event = eventSchemas[this.bindingKey].parse(JSON.parse(message.content.toString('utf8')));
    } catch (error) {
      log.warn('poison message dead-lettered', {
        queue: this.queue,
        deadLetterQueue: this.deadLetterQueue,
        reason: error instanceof Error ? error.message.slice(0, 500) : String(error),
      });
      quietly(() => channel.nack(message, false, false));
      return;
    }
    const key = typeof message.properties.messageId === 'string' ? message.properties.messageId : event.id;
    try {
      const delivery = { routingKey: message.fields.routingKey, redelivered: message.fields.redelivered };
      await handleInSpan({ queue: this.queue, routingKey: delivery.routingKey, headers: message.properties.headers }, () =>
        this.handler(event, delivery),
      );
      this.failures.delete(key);
      quietly(() => channel.ack(message));
    } catch (error) {
      if (error instanceof PoisonMessageError) {
        log.warn('message rejected by its handler, dead-lettered', { queue: this.queue, eventId: event.id, reason: error.message });
        this.failures.delete(key);
        quietly(() => channel.nack(message, false, false));
        return;
      }
      const attempt = (this.failures.get(key) ?? 0) + 1;
      if (this.failures.size > 10_000) this.failures.clear();
      this.failures.set(key, attempt);
      const delay = backoffMs(attempt, this.settings.retryInitialMs, this.settings.retryMaxMs);
      log.warn('handler failed, message requeued', { queue: this.queue, eventId: event.id, attempt, delayMs: delay, error });
      // The delay holds a prefetch slot: a failing dependency slows the consumer instead of spinning.
      await sleep(delay, this.abort.signal);
      quietly(() => channel.nack(message, false, true));
    }
  }

  async deadLetterDepth(): Promise<number> {
    const channel = this.channel;
    if (!channel) throw new Error('not connected to RabbitMQ');
    return (await channel.checkQueue(this.deadLetterQueue)).messageCount;
  }

  cancel(): Promise<void> {
    this.cancelling ??= (async () => {
      this.cancelled = true;
      const channel = this.channel;
      const tag = this.consumerTag;
      if (channel && tag) await channel.cancel(tag).catch(() => undefined);
      await settleWithin(this.inFlight, this.settings.drainTimeoutMs);
      this.abort.abort();
      await settleWithin(this.inFlight, 1000);
      this.channel = undefined;
      if (channel) await channel.close().catch(() => undefined);
    })();
    return this.cancelling;
  }
}
