import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { BALANCE_CHANGED, balanceChangedSchema, type BalanceChanged } from '@platform/events';

/** Every balance.changed message that reached a test exchange, in arrival order. */
export interface ExchangeObserver {
  messages: Array<{ event: BalanceChanged; redelivered: boolean }>;
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
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      messages.push({
        event: balanceChangedSchema.parse(JSON.parse(message.content.toString('utf8'))),
        redelivered: message.fields.redelivered,
      });
    },
    { noAck: true },
  );
  return {
    messages,
    eventsOf: (accountId) => messages.filter((message) => message.event.accountId === accountId).map((message) => message.event),
    async close() {
      await connection.close();
    },
  };
}
