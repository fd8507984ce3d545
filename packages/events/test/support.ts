/** What the AMQP bus tests share: a bus quick to retry and reconnect, and waiting for its broker to answer or not. */
import { eventually, silentLogger } from '@platform/testing';
import { createAmqpEventBus, type EventBus } from '../src';

export type BusOptions = Parameters<typeof createAmqpEventBus>[0];

/** A bus on `exchange` at `url` that retries after 20 ms and reconnects within 50–200 ms (a test's patience). */
export function quickBus(exchange: string, url: string, extra: Partial<BusOptions> = {}): EventBus {
  return createAmqpEventBus({
    url,
    exchange,
    logger: silentLogger(),
    retryInitialMs: 20,
    reconnectInitialMs: 50,
    reconnectMaxMs: 200,
    ...extra,
  });
}

/** Waits until the bus's broker answers a ping (`answers`) or stops answering (`!answers`). */
export async function untilPing(bus: EventBus, answers: boolean): Promise<void> {
  await eventually(async () =>
    (await bus.ping().then(
      () => true,
      () => false,
    )) === answers
      ? true
      : undefined,
  );
}
