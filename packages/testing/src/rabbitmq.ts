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
