import { eventually, testServers, aBalanceChange } from '@platform/testing';
import {
  BALANCE_CHANGED,
  EventBusUnavailableError,
  InvalidEventError,
  PoisonMessageError,
  UnroutableEventError,
  type BalanceChanged,
} from '../src';
import { countingConsumer, untilPing, useBusTests } from './support';

const anEvent = (overrides: Partial<BalanceChanged> = {}): BalanceChanged => aBalanceChange({ accountId: 7, ...overrides });

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('AMQP event bus (real RabbitMQ)', () => {
  const { names, aBus, aProxy, channel } = useBusTests('test.events.');

  async function queueDepth(queue: string): Promise<number> {
    return (await channel().checkQueue(queue)).messageCount;
  }

  it('when an event is published, then publish resolves on confirm and the consumer gets it', async () => {
    const { exchange, queue } = names();
    const bus = aBus(exchange);
    const received: BalanceChanged[] = [];
    const subscription = bus.consume(queue, BALANCE_CHANGED, async (event) => {
      received.push(event);
      return Promise.resolve();
    });
    await subscription.ready;
    const event = anEvent();
    await bus.publish(BALANCE_CHANGED, event);
    await eventually(() => (received.length === 1 ? true : undefined));
    expect(received[0]).toEqual(event);
    await eventually(async () => ((await queueDepth(queue)) === 0 ? true : undefined));
    await bus.ping();
  });

  it('when an array of events is published, then it is one persistent message whose body is the array, and the consumer gets each event in order', async () => {
    const { exchange, queue } = names();
    const bus = aBus(exchange);
    const received: BalanceChanged[] = [];
    const events = [anEvent({ credits: 3 }), anEvent({ accountId: 8 }), anEvent({ accountId: 9 })];
    await bus.consume(queue, BALANCE_CHANGED, async (event) => {
      received.push(event);
      return Promise.resolve();
    }).ready;
    // A raw queue beside the consumer's (its exchange declared by now) sees the message as it is on the wire.
    const { queue: wire } = await channel().assertQueue('', { exclusive: true });
    await channel().bindQueue(wire, exchange, BALANCE_CHANGED);
    await bus.publish(BALANCE_CHANGED, events);
    await eventually(() => (received.length === 3 ? true : undefined));
    expect(received).toEqual(events);
    const message = await channel().get(wire, { noAck: true });
    expect(message && JSON.parse(message.content.toString())).toEqual(events);
    expect(message && message.properties).toMatchObject({ deliveryMode: 2, messageId: events[0]?.id, contentType: 'application/json' });
    expect(await channel().get(wire, { noAck: true })).toBe(false);
  });

  it('when an array holds an invalid event or is empty, then publish rejects it whole as invalid', async () => {
    const { exchange, queue } = names();
    const bus = aBus(exchange);
    await bus.consume(queue, BALANCE_CHANGED, () => Promise.resolve()).ready;
    await expect(bus.publish(BALANCE_CHANGED, [anEvent(), { ...anEvent(), credits: -1 }])).rejects.toBeInstanceOf(InvalidEventError);
    await expect(bus.publish(BALANCE_CHANGED, [])).rejects.toBeInstanceOf(InvalidEventError);
  });

  it('when one event of an array fails transiently, then the whole message is redelivered (redelivered=true) and every event is handled again', async () => {
    const { exchange, queue } = names();
    const bus = aBus(exchange);
    const calls: Array<[string, boolean]> = [];
    const events = [anEvent(), anEvent(), anEvent()];
    let failed = false;
    await bus.consume(queue, BALANCE_CHANGED, async (event, delivery) => {
      calls.push([event.id, delivery.redelivered]);
      if (event.id === events[1]?.id && !failed) {
        failed = true;
        throw new Error('database down');
      }
      return Promise.resolve();
    }).ready;
    await bus.publish(BALANCE_CHANGED, events);
    await eventually(() => (calls.length === 6 ? true : undefined));
    expect(calls).toEqual([...events.map((event) => [event.id, false]), ...events.map((event) => [event.id, true])]);
    await eventually(async () => ((await queueDepth(queue)) === 0 ? true : undefined));
  });

  it('when one event of an array is poison, then the others are handled once and the message is dead-lettered, not retried', async () => {
    const { exchange, queue, deadLetterQueue } = names();
    const bus = aBus(exchange);
    const handled: string[] = [];
    const events = [anEvent(), anEvent({ accountId: 999 }), anEvent()];
    await bus.consume(queue, BALANCE_CHANGED, async (event) => {
      if (event.accountId === 999) throw new PoisonMessageError('unknown account');
      handled.push(event.id);
      return Promise.resolve();
    }).ready;
    await bus.publish(BALANCE_CHANGED, events);
    await eventually(async () => ((await queueDepth(deadLetterQueue)) === 1 ? true : undefined));
    await sleep(100);
    expect(handled).toEqual([events[0]?.id, events[2]?.id]);
  });

  it('when the queue is durable and declared with a dead-letter queue, then both exist after consume', async () => {
    const { exchange, queue, deadLetterQueue } = names();
    const bus = aBus(exchange);
    await bus.consume(queue, BALANCE_CHANGED, () => Promise.resolve()).ready;
    await expect(channel().checkQueue(queue)).resolves.toMatchObject({ queue });
    await expect(channel().checkQueue(deadLetterQueue)).resolves.toMatchObject({ queue: deadLetterQueue });
  });

  it('when no queue is bound to the routing key, then publish rejects as unroutable', async () => {
    const { exchange } = names();
    const bus = aBus(exchange);
    await expect(bus.publish(BALANCE_CHANGED, anEvent())).rejects.toBeInstanceOf(UnroutableEventError);
  });

  it('when a message is not JSON or fails the schema, then it goes to the dead-letter queue and the handler never runs', async () => {
    const { exchange, queue, deadLetterQueue } = names();
    const bus = aBus(exchange);
    const calls = await countingConsumer(bus, queue, () => Promise.resolve());
    channel().publish(exchange, BALANCE_CHANGED, Buffer.from('{not json'), { persistent: true });
    channel().publish(exchange, BALANCE_CHANGED, Buffer.from(JSON.stringify({ ...anEvent(), credits: -5 })), { persistent: true });
    await eventually(async () => ((await queueDepth(deadLetterQueue)) === 2 ? true : undefined));
    expect(calls()).toBe(0);
    const first = await channel().get(deadLetterQueue, { noAck: true });
    expect(first && first.content.toString()).toBe('{not json');
  });

  it('when the handler throws PoisonMessageError, then the message is dead-lettered, not retried', async () => {
    const { exchange, queue, deadLetterQueue } = names();
    const bus = aBus(exchange);
    const calls = await countingConsumer(bus, queue, () => Promise.reject(new PoisonMessageError('unknown account')));
    await bus.publish(BALANCE_CHANGED, anEvent());
    await eventually(async () => ((await queueDepth(deadLetterQueue)) === 1 ? true : undefined));
    await sleep(100);
    expect(calls()).toBe(1);
  });

  it('when the handler fails transiently, then the message is requeued and redelivered until it succeeds', async () => {
    const { exchange, queue } = names();
    const bus = aBus(exchange);
    const deliveries: boolean[] = [];
    await bus.consume(queue, BALANCE_CHANGED, async (_event, delivery) => {
      deliveries.push(delivery.redelivered);
      if (deliveries.length < 3) throw new Error('database unavailable');
      return Promise.resolve();
    }).ready;
    await bus.publish(BALANCE_CHANGED, anEvent());
    await eventually(() => (deliveries.length === 3 ? true : undefined));
    expect(deliveries).toEqual([false, true, true]);
    await eventually(async () => ((await queueDepth(queue)) === 0 ? true : undefined));
  });

  it('when prefetch is 3, then no more than 3 deliveries are in flight', async () => {
    const { exchange, queue } = names();
    const bus = aBus(exchange);
    let running = 0;
    let peak = 0;
    let done = 0;
    await bus.consume(
      queue,
      BALANCE_CHANGED,
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(40);
        running -= 1;
        done += 1;
      },
      { prefetch: 3 },
    ).ready;
    await Promise.all(Array.from({ length: 10 }, () => bus.publish(BALANCE_CHANGED, anEvent())));
    await eventually(() => (done === 10 ? true : undefined));
    expect(peak).toBe(3);
  });

  it('when RabbitMQ becomes unreachable, then publish fails fast, and after it returns the bus reconnects and the consumer resumes', async () => {
    const { exchange, queue } = names();
    const proxy = await aProxy();
    const bus = aBus(exchange, proxy.url(testServers.amqpUrl), { publishTimeoutMs: 300 });
    const received: string[] = [];
    const subscription = bus.consume(queue, BALANCE_CHANGED, async (event) => {
      received.push(event.id);
      return Promise.resolve();
    });
    await subscription.ready;

    proxy.cut();
    await untilPing(bus, false);
    expect(subscription.isActive()).toBe(false);
    await expect(bus.publish(BALANCE_CHANGED, anEvent())).rejects.toBeInstanceOf(EventBusUnavailableError);

    proxy.restore();
    await untilPing(bus, true);
    await eventually(() => (subscription.isActive() ? true : undefined));
    const event = anEvent();
    await bus.publish(BALANCE_CHANGED, event);
    await eventually(() => (received.includes(event.id) ? true : undefined));
  });

  it('when the connection drops before the ack, then the broker redelivers the message to the next consumer', async () => {
    const { exchange, queue } = names();
    const proxy = await aProxy();
    const crashing = aBus(exchange, proxy.url(testServers.amqpUrl), {
      reconnectInitialMs: 60_000,
      reconnectMaxMs: 60_000,
      drainTimeoutMs: 100,
    });
    let seenByCrashing = 0;
    await crashing.consume(queue, BALANCE_CHANGED, async () => {
      seenByCrashing += 1;
      proxy.cut();
      return new Promise(() => undefined);
    }).ready;
    const event = anEvent();
    await aBus(exchange).publish(BALANCE_CHANGED, event);
    await eventually(() => (seenByCrashing === 1 ? true : undefined));

    const redeliveries: boolean[] = [];
    const next = aBus(exchange);
    await next.consume(queue, BALANCE_CHANGED, async (delivered, delivery) => {
      if (delivered.id === event.id) redeliveries.push(delivery.redelivered);
      return Promise.resolve();
    }).ready;
    await eventually(() => (redeliveries.length === 1 ? true : undefined));
    expect(redeliveries).toEqual([true]);
  });

  it('when closed, then handlers in flight finish and are acknowledged first', async () => {
    const { exchange, queue } = names();
    const bus = aBus(exchange);
    let started = false;
    let finished = false;
    await bus.consume(queue, BALANCE_CHANGED, async () => {
      started = true;
      await sleep(150);
      finished = true;
    }).ready;
    await bus.publish(BALANCE_CHANGED, anEvent());
    await eventually(() => (started ? true : undefined));
    await bus.close();
    expect(finished).toBe(true);
    await eventually(async () => ((await queueDepth(queue)) === 0 ? true : undefined));
    await expect(bus.publish(BALANCE_CHANGED, anEvent())).rejects.toBeInstanceOf(EventBusUnavailableError);
  });
});
