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

/** A benchmark queue's kind: `classic`, non-durable (in memory); `quorum`, as the notifier's queues (replicated, on disk). */
export type BenchQueueType = 'classic' | 'quorum';

/**
 * Binds a queue of its own to `exchange` (declared as the event bus declares it), so that
 * publishes to it are routable, capped at `maxLength` messages (the oldest are dropped). For a
 * benchmark whose outbox relay must really publish, with no consumer. Delete it with deleteTopology.
 */
export async function bindBenchQueue(
  url: string,
  exchange: string,
  queue: string,
  routingKey: string,
  { type = 'classic', maxLength = 1000 }: { type?: BenchQueueType; maxLength?: number } = {},
): Promise<void> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertQueue(
      queue,
      type === 'quorum'
        ? { durable: true, arguments: { 'x-queue-type': 'quorum', 'x-max-length': maxLength, 'x-overflow': 'drop-head' } }
        : { durable: false, arguments: { 'x-max-length': maxLength } },
    );
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
