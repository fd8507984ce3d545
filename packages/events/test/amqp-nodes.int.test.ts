/**
 * CONTRACT §1 "Scale-out engines", RabbitMQ: AMQP_URL may list several nodes; the bus connects to
 * the first that answers and moves to another when its node goes away, and the consumer's queues
 * are quorum queues with a delivery limit. Two TCP proxies in front of the shared broker stand for
 * two nodes (cutting one is its node going away); a port nobody listens on is a dead node.
 */
import { aBalanceChange, eventually, freePort, testServers } from '@platform/testing';
import { BALANCE_CHANGED, PoisonMessageError, type BalanceChanged } from '../src';
import { UPGRADE_SUFFIX } from '../src/amqp-queues';
import { useBusTests } from './support';

describe('AMQP event bus over several nodes (real RabbitMQ)', () => {
  const { names, aBus, aProxy, onChannel } = useBusTests('test.nodes.', (queue) =>
    [queue, `${queue}.dead`].flatMap((name) => [name, `${name}${UPGRADE_SUFFIX}`]),
  );

  /** True when `queue` is a quorum queue with these arguments: declaring it so again is accepted. */
  const isQuorum = (queue: string, args: Record<string, unknown> = {}): Promise<boolean> =>
    onChannel((channel) =>
      channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum', ...args } }).then(
        () => true,
        () => false,
      ),
    );
  /** The main queue's arguments besides its type. */
  const mainArguments = (exchange: string, deadLetterQueue: string, deliveryLimit: number): Record<string, unknown> => ({
    'x-delivery-limit': deliveryLimit,
    'x-dead-letter-exchange': `${exchange}.dlx`,
    'x-dead-letter-routing-key': deadLetterQueue,
  });

  it('when the first node of AMQP_URL is dead, then the bus connects to the next and events flow', async () => {
    const { exchange, queue } = names();
    const dead = `amqp://guest:guest@127.0.0.1:${await freePort()}`;
    const bus = aBus(exchange, `${dead}, ${testServers.amqpUrl}`);
    const received: string[] = [];
    const subscription = bus.consume(queue, BALANCE_CHANGED, (event) => {
      received.push(event.id);
      return Promise.resolve();
    });
    await subscription.ready;
    const event = aBalanceChange();
    await bus.publish(BALANCE_CHANGED, event);
    await eventually(() => (received.includes(event.id) ? true : undefined));
    await expect(bus.ping()).resolves.toBeUndefined();
  });

  it('when the node the publisher and the consumer are on goes away mid-run, then both move to the other and no event is lost', async () => {
    const { exchange, queue } = names();
    const [first, second] = [await aProxy(), await aProxy()];
    const url = `${first.url(testServers.amqpUrl)},${second.url(testServers.amqpUrl)}`;
    const consumer = aBus(exchange, url);
    const publisher = aBus(exchange, url);
    const received = new Map<string, number>();
    const subscription = consumer.consume(queue, BALANCE_CHANGED, (event: BalanceChanged) => {
      received.set(event.id, (received.get(event.id) ?? 0) + 1);
      return Promise.resolve();
    });
    await subscription.ready;
    await publisher.ping();
    const firstAtStart = first.accepted();
    expect({ first: firstAtStart, second: second.accepted() }).toEqual({ first: 2, second: 0 });

    // Publishes in flight while the node goes away: each resolves (confirmed, on either node).
    const events = Array.from({ length: 300 }, () => aBalanceChange());
    const publishing = (async () => {
      for (let from = 0; from < events.length; from += 10) {
        await Promise.all(events.slice(from, from + 10).map((event) => publisher.publish(BALANCE_CHANGED, event)));
      }
    })();
    await eventually(() => (received.size >= 50 ? true : undefined), 10_000, 'the first events');
    first.cut();
    await publishing;
    await eventually(() => (events.every((event) => received.has(event.id)) ? true : undefined), 20_000, 'every event');
    expect(second.accepted()).toBe(2);
    expect(subscription.isActive()).toBe(true);
    // At least once: a delivery whose ack the cut swallowed comes again (the notifier deduplicates by id).
    expect([...received.keys()].sort()).toEqual(events.map((event) => event.id).sort());
  }, 40_000);

  it('when the queues are declared, then both are quorum queues and a message that keeps failing is dead-lettered at the delivery limit', async () => {
    const { exchange, queue, deadLetterQueue } = names();
    const bus = aBus(exchange, testServers.amqpUrl, { retryMaxMs: 20 });
    let attempts = 0;
    const subscription = bus.consume(
      queue,
      BALANCE_CHANGED,
      () => {
        attempts += 1;
        return Promise.reject(new Error('the database is down'));
      },
      { deliveryLimit: 3 },
    );
    await subscription.ready;
    expect(await isQuorum(queue, mainArguments(exchange, deadLetterQueue, 3))).toBe(true);
    expect(await isQuorum(deadLetterQueue)).toBe(true);
    await bus.publish(BALANCE_CHANGED, aBalanceChange());
    await eventually(async () => ((await subscription.deadLetterDepth()) === 1 ? true : undefined), 10_000, 'the dead-lettered message');
    // The first delivery and three redeliveries, then the broker dead-letters it.
    expect(attempts).toBe(4);
  });

  it('when classic queues of the same names hold messages (an earlier version), then they become quorum queues and no message is lost', async () => {
    const { exchange, queue, deadLetterQueue } = names();
    const waiting = [aBalanceChange(), aBalanceChange()];
    const poison = aBalanceChange();
    // What the earlier version declared: classic queues, the main one dead-lettering into the other.
    await onChannel(async (channel) => {
      await channel.assertExchange(exchange, 'topic', { durable: true });
      await channel.assertExchange(`${exchange}.dlx`, 'direct', { durable: true });
      await channel.assertQueue(deadLetterQueue, { durable: true });
      await channel.bindQueue(deadLetterQueue, `${exchange}.dlx`, deadLetterQueue);
      await channel.assertQueue(queue, {
        durable: true,
        arguments: { 'x-dead-letter-exchange': `${exchange}.dlx`, 'x-dead-letter-routing-key': deadLetterQueue },
      });
      await channel.bindQueue(queue, exchange, BALANCE_CHANGED);
      for (const event of waiting) channel.publish(exchange, BALANCE_CHANGED, Buffer.from(JSON.stringify(event)), { persistent: true });
      channel.sendToQueue(deadLetterQueue, Buffer.from(JSON.stringify(poison)), { persistent: true });
    });
    await eventually(async () => ((await onChannel((c) => c.checkQueue(queue))).messageCount === 2 ? true : undefined));
    expect(await isQuorum(queue, mainArguments(exchange, deadLetterQueue, 50))).toBe(false);

    const bus = aBus(exchange, testServers.amqpUrl);
    const received: string[] = [];
    const subscription = bus.consume(queue, BALANCE_CHANGED, (event) => {
      received.push(event.id);
      return event.id === waiting[1]?.id ? Promise.reject(new PoisonMessageError('poison')) : Promise.resolve();
    });
    await subscription.ready;
    expect(await isQuorum(queue, mainArguments(exchange, deadLetterQueue, 50))).toBe(true);
    expect(await isQuorum(deadLetterQueue)).toBe(true);
    const after = aBalanceChange();
    await bus.publish(BALANCE_CHANGED, after);
    await eventually(() => (received.length === 3 ? true : undefined), 10_000, 'the waiting messages and a new one');
    expect(received.sort()).toEqual([...waiting.map((event) => event.id), after.id].sort());
    // The old dead letter and the new one are both in the (quorum) dead-letter queue.
    await eventually(async () => ((await subscription.deadLetterDepth()) === 2 ? true : undefined), 10_000, 'two dead letters');
    const parked = await onChannel((channel) =>
      channel.checkQueue(`${queue}${UPGRADE_SUFFIX}`).then(
        () => true,
        () => false,
      ),
    );
    expect(parked).toBe(false);
  });
});
