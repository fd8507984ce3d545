import type { Logger } from '@platform/runtime';
import type { Settings } from './amqp-subscription';
import { amqpNodes } from './amqp-nodes';
import { BALANCE_EXCHANGE } from './balance-changed';

export interface AmqpEventBusOptions {
  /** One node's URL, or a cluster's nodes comma-separated (AMQP_URL): the bus connects to the first that answers. */
  url: string;
  logger: Logger;
  /** Topic exchange the events go through. Default `balance.events`. */
  exchange?: string;
  /** Name shown in the RabbitMQ management UI. */
  connectionName?: string;
  /** Reconnect backoff. Defaults 200 ms doubling to 5 s. */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  /** How long publish() waits for a connection before it rejects. Default 5 s. */
  publishTimeoutMs?: number;
  /** How long publish() waits for the broker's confirm. Default 10 s. */
  confirmTimeoutMs?: number;
  /** Delay before a message whose handler failed is requeued; doubles per failure of that message. Defaults 500 ms … 30 s. */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** How long cancel()/close() wait for handlers in flight. Default 10 s. */
  drainTimeoutMs?: number;
}

/** The options with their defaults filled in: what the bus and its consumers share. */
export function settingsOf(options: AmqpEventBusOptions): Settings {
  const exchange = options.exchange ?? BALANCE_EXCHANGE;
  return {
    nodes: amqpNodes(options.url),
    logger: options.logger,
    exchange,
    deadLetterExchange: `${exchange}.dlx`,
    connectionName: options.connectionName ?? 'event-bus',
    reconnectInitialMs: options.reconnectInitialMs ?? 200,
    reconnectMaxMs: options.reconnectMaxMs ?? 5000,
    publishTimeoutMs: options.publishTimeoutMs ?? 5000,
    confirmTimeoutMs: options.confirmTimeoutMs ?? 10_000,
    retryInitialMs: options.retryInitialMs ?? 500,
    retryMaxMs: options.retryMaxMs ?? 30_000,
    drainTimeoutMs: options.drainTimeoutMs ?? 10_000,
  };
}
