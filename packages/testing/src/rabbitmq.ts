import amqp from 'amqplib';

/** Deletes a test's own queues and exchanges from the shared RabbitMQ (never anyone else's). */
export async function deleteTopology(url: string, names: { queues?: string[]; exchanges?: string[] }): Promise<void> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    for (const queue of names.queues ?? []) await channel.deleteQueue(queue);
    for (const exchange of names.exchanges ?? []) await channel.deleteExchange(exchange);
  } finally {
    await connection.close();
  }
}

/**
 * Binds a queue of its own to `exchange` (declared as the event bus declares it), so that
 * publishes to it are routable: non-durable (the broker keeps it in memory) and capped at
 * `maxLength` messages (the oldest are dropped). For a benchmark whose outbox relay must really
 * publish, with no consumer. Delete it with deleteTopology.
 */
export async function bindTransientQueue(
  url: string,
  exchange: string,
  queue: string,
  routingKey: string,
  maxLength = 1000,
): Promise<void> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertQueue(queue, { durable: false, arguments: { 'x-max-length': maxLength } });
    await channel.bindQueue(queue, exchange, routingKey);
  } finally {
    await connection.close();
  }
}

/** Messages ready in a queue of the shared RabbitMQ (not counting those delivered and unacknowledged). */
export async function queueDepth(url: string, queue: string): Promise<number> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    return (await channel.checkQueue(queue)).messageCount;
  } finally {
    await connection.close();
  }
}
