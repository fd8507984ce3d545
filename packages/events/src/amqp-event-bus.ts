import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { errorMessage } from '@platform/runtime';
import { settingsOf, type AmqpEventBusOptions } from './amqp-options';
import { NackedError, publishConfirmed, watchReturns } from './amqp-publish';
import { AmqpSubscription, settleWithin, sleep } from './amqp-subscription';
import { connectFirst, nodeName } from './amqp-nodes';
import { backoffMs, EventBusUnavailableError, validateMessage, type EventBus, type EventName } from './event-bus';

export type { AmqpEventBusOptions } from './amqp-options';

/** A publish whose channel died before the broker confirmed it goes out again on the next connection, this often at most. */
const RESENDS = 2;

/**
 * RabbitMQ event bus: a durable topic exchange, persistent messages published on a confirm
 * channel with `mandatory` (an unroutable message is a failure, not a silent drop), durable
 * consumer queues with a dead-letter queue each, and automatic reconnection with backoff.
 * Connecting happens in the background: the bus is usable at once and waits for the broker.
 */
export function createAmqpEventBus(options: AmqpEventBusOptions): EventBus {
  const settings = settingsOf(options);
  const exchange = settings.exchange;
  const log = settings.logger;
  const subscriptions = new Set<AmqpSubscription>();
  const pendingPublishes = new Set<Promise<void>>();
  const returned = new Set<string>();
  const stopReconnecting = new AbortController();
  let model: ChannelModel | undefined;
  let confirm: ConfirmChannel | undefined;
  let closing = false;
  let closed: Promise<void> | undefined;
  let connecting: Promise<void> | undefined;
  let connectedWaiters: Array<() => void> = [];
  // The node the bus is (or was last) connected to, and the one the next connect tries first.
  let connectedNode = 0;
  let nextNode = 0;

  const dropConnection = (current: ChannelModel, reason: string): void => {
    if (model !== current) return;
    model = undefined;
    confirm = undefined;
    if (closing) return;
    // Its node went away (or misbehaves): the next connect starts with another one.
    nextNode = (connectedNode + 1) % settings.nodes.length;
    log.warn('amqp connection lost, reconnecting', { reason, node: nodeName(settings.nodes[connectedNode] as string) });
    void current.close().catch(() => undefined);
    startConnecting();
  };

  // Publish channels replaced after a nack (see renewPublishChannel): their close drops nothing.
  const retired = new WeakSet<ConfirmChannel>();
  let renewing: { channel: ConfirmChannel; done: Promise<void> } | undefined;

  const openPublishChannel = async (current: ChannelModel): Promise<ConfirmChannel> => {
    const channel = await current.createConfirmChannel();
    channel.on('error', (error: Error) => log.warn('amqp publish channel error', { error: error.message }));
    channel.on('close', () => {
      if (!retired.has(channel)) dropConnection(current, 'publish channel closed');
    });
    watchReturns(channel, returned);
    await channel.assertExchange(exchange, 'topic', { durable: true });
    return channel;
  };

  /**
   * The broker nacked a publish on `channel`: the publish channel is replaced by a fresh one on
   * the same connection. A channel keeps its own view of each quorum queue it published to (its
   * leader); opened while a queue's leader was on a node that just died (the connection moved
   * on before the queue elected a new leader), RabbitMQ's channel keeps refusing every publish
   * to that queue, while a channel opened afterwards reaches the new leader.
   */
  const renewPublishChannel = (channel: ConfirmChannel): Promise<void> => {
    const current = model;
    if (!current || closing || confirm !== channel) return renewing?.done ?? Promise.resolve();
    if (renewing?.channel === channel) return renewing.done;
    const done = openPublishChannel(current).then(
      (fresh) => {
        if (model !== current || closing) {
          retired.add(fresh);
          void fresh.close().catch(() => undefined);
          return;
        }
        confirm = fresh;
        retired.add(channel);
        log.info('amqp publish channel renewed after a refused publish', { node: nodeName(settings.nodes[connectedNode] as string) });
        // Its unconfirmed publishes fail as 'channel closed' and go out again on the new one.
        void channel.close().catch(() => undefined);
      },
      (error: unknown) => dropConnection(current, `publish channel renewal failed: ${errorMessage(error)}`),
    );
    const entry = { channel, done };
    renewing = entry;
    void done.finally(() => {
      if (renewing === entry) renewing = undefined;
    });
    return done;
  };

  const openOnce = async (): Promise<void> => {
    const { model: next, index } = await connectFirst(settings.nodes, nextNode, settings.connectionName);
    try {
      next.on('error', (error: Error) => log.warn('amqp connection error', { error: error.message }));
      next.on('close', () => dropConnection(next, 'connection closed'));
      const channel = await openPublishChannel(next);
      model = next;
      confirm = channel;
      connectedNode = index;
      // Every consumer declares its topology again on the new node.
      for (const subscription of subscriptions) await subscription.attach(next);
    } catch (error) {
      nextNode = (index + 1) % settings.nodes.length;
      model = undefined;
      confirm = undefined;
      await next.close().catch(() => undefined);
      throw error;
    }
  };

  function startConnecting(): void {
    connecting ??= (async () => {
      for (let attempt = 1; !closing; attempt += 1) {
        try {
          await openOnce();
          log.info('amqp connected', { exchange, node: nodeName(settings.nodes[connectedNode] as string) });
          const waiters = connectedWaiters;
          connectedWaiters = [];
          for (const wake of waiters) wake();
          return;
        } catch (error) {
          const delay = backoffMs(attempt, settings.reconnectInitialMs, settings.reconnectMaxMs);
          log.warn('amqp connect failed', { attempt, retryInMs: delay, error: errorMessage(error) });
          await sleep(delay, stopReconnecting.signal);
        }
      }
    })().finally(() => {
      connecting = undefined;
    });
  }

  const reattach = (subscription: AmqpSubscription): void => {
    const current = model;
    if (!current || closing) return;
    // A lone consumer channel died (e.g. its queue was deleted): rebuild it after a pause.
    void sleep(settings.reconnectInitialMs, stopReconnecting.signal)
      .then(() => (model === current && !closing ? subscription.attach(current) : undefined))
      .catch((error: unknown) => dropConnection(current, `consumer re-attach failed: ${errorMessage(error)}`));
  };

  const publishChannel = async (): Promise<ConfirmChannel> => {
    if (confirm) return confirm;
    if (closing) throw new EventBusUnavailableError('event bus closed');
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    await new Promise<void>((resolve, reject) => {
      wake = resolve;
      connectedWaiters.push(resolve);
      timer = setTimeout(() => reject(new EventBusUnavailableError('RabbitMQ is unreachable')), settings.publishTimeoutMs);
    }).finally(() => {
      clearTimeout(timer);
      connectedWaiters = connectedWaiters.filter((waiter) => waiter !== wake);
    });
    if (!confirm) throw new EventBusUnavailableError('RabbitMQ is unreachable');
    return confirm;
  };

  /**
   * Publishes on the current channel. When that channel dies before the broker confirmed (its
   * node went away), the message may or may not be stored: it goes out again on the next
   * connection, so that an unconfirmed publish is never dropped (consumers deduplicate by id).
   */
  const publishOnce = async (routingKey: EventName, payload: unknown): Promise<void> => {
    const message = validateMessage(routingKey, payload);
    const firstId = (message.events[0] as { id: string }).id;
    for (let resend = 0; ; resend += 1) {
      const channel = await publishChannel();
      try {
        await publishConfirmed(
          { channel, exchange, returned, confirmTimeoutMs: settings.confirmTimeoutMs },
          routingKey,
          message.body,
          firstId,
        );
        return;
      } catch (error) {
        if (error instanceof NackedError) {
          // Refused by the broker: the caller retries (with its backoff) on a fresh channel.
          await renewPublishChannel(channel);
          throw error;
        }
        const channelLost = confirm !== channel && error instanceof EventBusUnavailableError;
        if (!channelLost || closing || resend >= RESENDS) throw error;
        log.warn('publish not confirmed before the connection was lost; sending it again', { eventId: firstId });
      }
    }
  };

  startConnecting();

  return {
    publish(routingKey, payload) {
      if (closing) return Promise.reject(new EventBusUnavailableError('event bus closed'));
      const task = publishOnce(routingKey, payload);
      const tracked = task.catch(() => undefined);
      pendingPublishes.add(tracked);
      void tracked.finally(() => pendingPublishes.delete(tracked));
      return task;
    },

    consume(queue, bindingKey, handler, consumeOptions = {}) {
      const subscription = new AmqpSubscription(settings, queue, bindingKey, handler, consumeOptions, reattach);
      subscriptions.add(subscription);
      const current = model;
      if (current) {
        subscription.attach(current).catch((error: unknown) => dropConnection(current, `consumer attach failed: ${errorMessage(error)}`));
      }
      return {
        ready: subscription.ready,
        isActive: () => subscription.isActive(),
        deadLetterDepth: () => subscription.deadLetterDepth(),
        cancel: async () => {
          await subscription.cancel();
          subscriptions.delete(subscription);
        },
      };
    },

    ping() {
      return model && confirm ? Promise.resolve() : Promise.reject(new EventBusUnavailableError('not connected to RabbitMQ'));
    },

    close() {
      closed ??= (async () => {
        await Promise.all([...subscriptions].map((subscription) => subscription.cancel()));
        closing = true;
        await settleWithin(pendingPublishes, settings.confirmTimeoutMs);
        stopReconnecting.abort();
        await connecting?.catch(() => undefined);
        const current = model;
        model = undefined;
        confirm = undefined;
        if (current) await current.close().catch(() => undefined);
      })();
      return closed;
    },
  };
}
