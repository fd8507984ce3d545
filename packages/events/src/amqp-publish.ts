/** One confirmed publish on a confirm channel: mandatory, persistent, traced, named by its first event's id. */
import { randomUUID } from 'node:crypto';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { injectTraceContext } from '@platform/runtime';
import { EventBusUnavailableError, UnroutableEventError, type EventName } from './event-bus';

const PUBLISH_ID = 'x-publish-id';

/** A publish the broker answered with a negative confirm (basic.nack), as opposed to one lost with its channel. */
export class NackedError extends EventBusUnavailableError {}

/** Notes in `returned` the publish id of every message the broker returns on `channel` (no queue bound: `mandatory`). */
export function watchReturns(channel: ConfirmChannel, returned: Set<string>): void {
  channel.on('return', (message: ConsumeMessage) => {
    const id = (message.properties.headers as Record<string, unknown> | undefined)?.[PUBLISH_ID];
    if (typeof id === 'string') returned.add(id);
  });
}

export interface PublishTarget {
  channel: ConfirmChannel;
  exchange: string;
  /** The ids of returned messages (watchReturns on the channel). */
  returned: Set<string>;
  confirmTimeoutMs: number;
}

/**
 * One publish of a message (one event, or the array of a commit's events) named by its first
 * event's id: resolves once the broker confirms it, rejects with NackedError on a nack,
 * UnroutableEventError when it was returned, EventBusUnavailableError otherwise.
 */
export async function publishConfirmed(target: PublishTarget, routingKey: EventName, body: unknown, firstId: string): Promise<void> {
  const { channel, exchange, returned } = target;
  const publishId = randomUUID();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      returned.delete(publishId);
      reject(new EventBusUnavailableError('RabbitMQ did not confirm the message in time'));
    }, target.confirmTimeoutMs);
    try {
      channel.publish(
        exchange,
        routingKey,
        Buffer.from(JSON.stringify(body)),
        {
          persistent: true,
          mandatory: true,
          contentType: 'application/json',
          // A message of several events is named by its first (every event keeps its own id in the body).
          messageId: firstId,
          type: routingKey,
          timestamp: Math.floor(Date.now() / 1000),
          // The publisher's trace continues in the consumer (W3C traceparent; none when tracing is off).
          headers: injectTraceContext({ [PUBLISH_ID]: publishId }),
        },
        (error: unknown) => {
          clearTimeout(timer);
          const wasReturned = returned.delete(publishId);
          if (error)
            reject(
              error instanceof Error && error.message === 'message nacked'
                ? new NackedError('RabbitMQ refused or lost the message', { cause: error })
                : new EventBusUnavailableError('RabbitMQ refused or lost the message', { cause: error }),
            );
          else if (wasReturned) reject(new UnroutableEventError(`no queue is bound to ${exchange} for ${routingKey}`));
          else resolve();
        },
      );
    } catch (error) {
      clearTimeout(timer);
      reject(new EventBusUnavailableError('publish channel closed', { cause: error }));
    }
  });
}
