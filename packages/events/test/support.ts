/**
 * What the AMQP bus tests share: a bus quick to retry and reconnect, names of their own per test
 * (deleted after the file), TCP proxies standing for nodes, an admin channel, and waiting for a
 * bus's broker to answer or not.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { eventually, silentLogger, startTcpProxy, testServers, uniqueId, type TcpProxy } from '@platform/testing';
import { BALANCE_CHANGED, createAmqpEventBus, type EventBus } from '../src';

export type BusOptions = Parameters<typeof createAmqpEventBus>[0];

export interface BusTests {
  /** An exchange and its queues of this test's own (parallel tests never see each other's messages). */
  names(): { exchange: string; queue: string; deadLetterQueue: string };
  /** A bus on `exchange` that retries after 20 ms and reconnects within 50–200 ms; closed after the test. */
  aBus(exchange: string, url?: string, extra?: Partial<BusOptions>): EventBus;
  /** A TCP proxy in front of the shared broker (a node to cut); closed after the test. */
  aProxy(): Promise<TcpProxy>;
  /** The admin connection's channel (opened before the file's tests). */
  channel(): Channel;
  /** A fresh admin channel for one question: a refused one closes only itself. */
  onChannel<T>(use: (channel: Channel) => Promise<T>): Promise<T>;
}

/** The fixture of a describe block; `queuesOf` names every queue a consumer of `queue` may declare. */
export function useBusTests(prefix: string, queuesOf: (queue: string) => string[] = (queue) => [queue, `${queue}.dead`]): BusTests {
  let admin: ChannelModel;
  let channel: Channel;
  const exchanges = new Set<string>();
  const queues = new Set<string>();
  const buses: EventBus[] = [];
  const proxies: TcpProxy[] = [];

  async function onChannel<T>(use: (channel: Channel) => Promise<T>): Promise<T> {
    const fresh = await admin.createChannel();
    fresh.on('error', () => undefined);
    try {
      return await use(fresh);
    } finally {
      await fresh.close().catch(() => undefined);
    }
  }

  beforeAll(async () => {
    admin = await amqp.connect(testServers.amqpUrl);
    channel = await admin.createChannel();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });
  afterAll(async () => {
    await onChannel(async (cleaner) => {
      for (const queue of queues) await cleaner.deleteQueue(queue).catch(() => undefined);
      for (const exchange of exchanges) await cleaner.deleteExchange(exchange).catch(() => undefined);
    });
    await admin.close();
  });

  return {
    names() {
      const exchange = uniqueId(prefix);
      const queue = `${exchange}.q`;
      exchanges.add(exchange).add(`${exchange}.dlx`);
      for (const name of queuesOf(queue)) queues.add(name);
      return { exchange, queue, deadLetterQueue: `${queue}.dead` };
    },
    aBus(exchange, url = testServers.amqpUrl, extra = {}) {
      const bus = createAmqpEventBus({
        ...{ url, exchange, logger: silentLogger() },
        ...{ retryInitialMs: 20, reconnectInitialMs: 50, reconnectMaxMs: 200 },
        ...extra,
      });
      buses.push(bus);
      return bus;
    },
    async aProxy() {
      const started = await startTcpProxy(Number(new URL(testServers.amqpUrl).port || 5672));
      proxies.push(started);
      return started;
    },
    channel: () => channel,
    onChannel,
  };
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

/** Consumes `queue` on `bus` with a handler that counts its calls and answers `answer()`; resolves once it is ready, to the count. */
export async function countingConsumer(bus: EventBus, queue: string, answer: () => Promise<void>): Promise<() => number> {
  let calls = 0;
  await bus.consume(queue, BALANCE_CHANGED, () => {
    calls += 1;
    return answer();
  }).ready;
  return () => calls;
}
