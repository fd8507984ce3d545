import type { Channel, ChannelModel, ConfirmChannel, Options } from 'amqplib';
import type { Logger } from '@platform/runtime';

/** Where a queue is bound: the exchange and the binding (routing) key. */
export interface Binding {
  exchange: string;
  key: string;
}

/** Suffix of the queue an upgrade from a classic queue parks the messages in (see declareQuorumQueue). */
export const UPGRADE_SUFFIX = '.quorum-upgrade';

/** PRECONDITION_FAILED: the queue exists with other arguments (here: an older classic queue). */
const PRECONDITION_FAILED = 406;

/** Runs `use` on a channel of its own, closed afterwards: a refused declaration closes only that one. */
async function onOwnChannel<T>(model: ChannelModel, use: (channel: Channel) => Promise<T>): Promise<T> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    return await use(channel);
  } finally {
    await channel.close().catch(() => undefined);
  }
}

async function exists(model: ChannelModel, queue: string): Promise<boolean> {
  return onOwnChannel(model, (channel) =>
    channel.checkQueue(queue).then(
      () => true,
      () => false,
    ),
  );
}

/** Declares the queue; false when the broker refuses because one of that name exists with other arguments. */
async function tryDeclare(model: ChannelModel, queue: string, options: Options.AssertQueue): Promise<boolean> {
  return onOwnChannel(model, async (channel) => {
    try {
      await channel.assertQueue(queue, options);
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === PRECONDITION_FAILED) return false;
      throw error;
    }
  });
}

/** Moves every message of `from` into `to`, each confirmed by the broker before it is taken from `from`. */
async function move(channel: ConfirmChannel, from: string, to: string): Promise<number> {
  let moved = 0;
  for (;;) {
    const message = await channel.get(from, { noAck: false });
    if (message === false) return moved;
    channel.sendToQueue(to, message.content, message.properties);
    await channel.waitForConfirms();
    channel.ack(message);
    moved += 1;
  }
}

/**
 * Declares `queue` as a quorum queue (its `options` say so) bound as `binding` says. A broker
 * refuses to declare a queue again with other arguments (PRECONDITION_FAILED), so a classic queue
 * of that name left by an earlier version (or one with another delivery limit) is replaced in
 * place, without losing a message: a parking
 * quorum queue `<queue>.quorum-upgrade` is bound beside it, the classic one is unbound, emptied
 * into the parking queue and deleted, the quorum queue is declared and bound, and the parking
 * queue is emptied into it and deleted. Any step may be interrupted: the next attach finishes the
 * upgrade (a parking queue that still exists is emptied into the queue). Delivery stays at least
 * once (a message moved twice arrives twice; consumers deduplicate by event id).
 */
export async function declareQuorumQueue(
  model: ChannelModel,
  queue: string,
  options: Options.AssertQueue,
  binding: Binding,
  logger: Logger,
) {
  const parking = `${queue}${UPGRADE_SUFFIX}`;
  const bind = (channel: Channel, name: string) => channel.bindQueue(name, binding.exchange, binding.key);
  if (!(await tryDeclare(model, queue, options))) {
    logger.warn('upgrading a classic queue to a quorum queue', { queue });
    const channel = await model.createConfirmChannel();
    channel.on('error', () => undefined);
    try {
      await channel.assertQueue(parking, options);
      await bind(channel, parking);
      await channel.unbindQueue(queue, binding.exchange, binding.key);
      const moved = await move(channel, queue, parking);
      await channel.deleteQueue(queue, { ifEmpty: true });
      await channel.assertQueue(queue, options);
      logger.info('classic queue emptied and replaced by a quorum queue', { queue, moved });
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
  await onOwnChannel(model, (channel) => bind(channel, queue));
  if (await exists(model, parking)) {
    const channel = await model.createConfirmChannel();
    channel.on('error', () => undefined);
    try {
      await channel.unbindQueue(parking, binding.exchange, binding.key);
      const moved = await move(channel, parking, queue);
      // Unbound and emptied: nothing reaches it any more (quorum queues refuse if-empty deletes).
      await channel.deleteQueue(parking);
      logger.info('quorum queue upgrade finished', { queue, moved });
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
}
