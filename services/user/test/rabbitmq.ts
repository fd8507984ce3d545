import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { BALANCE_CHANGED, balanceChangedSchema, type BalanceChanged } from '@platform/events';
import { createPrivateDatabase, deleteTopology, testServers, uniqueId, type PrivateDatabase } from '@platform/testing';
import { startHarness, testConfig, type Harness } from './harness';

/** Every balance.changed event that reached a test exchange, in arrival order. */
export interface ExchangeObserver {
  /** One entry per event (a message whose body is an array gives one per element). */
  messages: Array<{ event: BalanceChanged; redelivered: boolean }>;
  /** One entry per message: its events, whether the body was an array, and its size in bytes. */
  bodies: Array<{ events: BalanceChanged[]; array: boolean; bytes: number }>;
  /** Events of one account, in arrival order, duplicates included. */
  eventsOf(accountId: number): BalanceChanged[];
  close(): Promise<void>;
}

/**
 * Binds an exclusive, auto-deleted queue to `exchange` (declared as the bus declares it: topic,
 * durable) and records what arrives. Publishing to the exchange is routable from then on.
 */
export async function observeExchange(url: string, exchange: string): Promise<ExchangeObserver> {
  const connection: ChannelModel = await amqp.connect(url);
  const channel: Channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, exchange, BALANCE_CHANGED);
  const messages: ExchangeObserver['messages'] = [];
  const bodies: ExchangeObserver['bodies'] = [];
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      // CONTRACT §6: one event object, or a JSON array of them.
      const body: unknown = JSON.parse(message.content.toString('utf8'));
      const events = (Array.isArray(body) ? body : [body]).map((item) => balanceChangedSchema.parse(item));
      bodies.push({ events, array: Array.isArray(body), bytes: message.content.length });
      for (const event of events) messages.push({ event, redelivered: message.fields.redelivered });
    },
    { noAck: true },
  );
  return {
    messages,
    bodies,
    eventsOf: (accountId) => messages.filter((message) => message.event.accountId === accountId).map((message) => message.event),
    async close() {
      await connection.close();
    },
  };
}

export interface ObservedRelay {
  /** The user service; its relay publishes to `exchange` on the shared RabbitMQ. */
  h: Harness;
  observer: ExchangeObserver;
  exchange: string;
}

/**
 * For a describe block: a user service on a database of its own (`name`) whose relay publishes to
 * an exchange of its own, observed on the wire; `env` over its variables. Started before the
 * block's tests (read the members inside them), stopped after, the database and exchange removed.
 */
export function useObservedRelay(name: string, env: Record<string, string>): ObservedRelay {
  const relay = { exchange: uniqueId(`test.user-${name}.`) } as ObservedRelay;
  let db: PrivateDatabase | undefined;
  beforeAll(async () => {
    db = await createPrivateDatabase(name);
    relay.observer = await observeExchange(testServers.amqpUrl, relay.exchange);
    relay.h = await startHarness({
      eventBus: 'amqp',
      config: testConfig({ DATABASE_URL: db.url, BALANCE_EXCHANGE: relay.exchange, ...env }),
    });
  });
  afterAll(async () => {
    await relay.h?.stop();
    await relay.observer?.close();
    await deleteTopology(testServers.amqpUrl, { exchanges: [relay.exchange] });
    await db?.drop();
  });
  return relay;
}
