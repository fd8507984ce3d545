import amqp from 'amqplib';
import { BALANCE_CHANGED } from '@platform/events';
import { eventually, testServers } from '@platform/testing';
import { aChange, useStartedHarness } from './harness';

/**
 * CONTRACT §6: a message on balance.events is one event or a JSON array of them (a usage batch
 * publishes one), every event keeps its id, and the notifier deduplicates per event: exactly one
 * e-mail per crossing however the events are grouped, repeated or redelivered.
 */
describe('notifier: messages that carry an array of events (real RabbitMQ, Postgres, SMTP)', () => {
  const harness = useStartedHarness();

  it('when one message carries the changes of several accounts, then each crossing among them gets its one e-mail', async () => {
    const low = await harness.account();
    const zero = await harness.account();
    const calm = await harness.account();
    const events = [aChange(low, 20, 5), aChange(zero, 3, 0), aChange(calm, 100, 99)];
    await harness.publisher.publish(BALANCE_CHANGED, events);
    await harness.settled(low, [events[0]!]);
    await harness.settled(zero, [events[1]!]);
    await harness.settled(calm, [events[2]!]);
    expect(harness.mailsTo(low).map((mail) => mail.subject)).toEqual(['Low balance alert: WHOIS API has 5 credits left']);
    expect(harness.mailsTo(zero).map((mail) => mail.subject)).toEqual(['Zero balance alert: WHOIS API has no credits left']);
    expect(harness.mailsTo(calm)).toHaveLength(0);
  });

  it('when one pool’s changes cross low and then zero inside one array, then both alerts are sent once, in order', async () => {
    const account = await harness.account();
    const events = [aChange(account, 12, 8), aChange(account, 8, 3), aChange(account, 3, 0)];
    await harness.publisher.publish(BALANCE_CHANGED, events);
    await harness.settled(account, events);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual([
      'Low balance alert: WHOIS API has 8 credits left',
      'Zero balance alert: WHOIS API has no credits left',
    ]);
  });

  it('when the same array arrives again (a relay republishing after a crash), then nothing is sent twice', async () => {
    const account = await harness.account();
    const events = [aChange(account, 15, 9), aChange(account, 9, 0)];
    await harness.publisher.publish(BALANCE_CHANGED, events);
    await harness.settled(account, events);
    await harness.publisher.publish(BALANCE_CHANGED, events);
    // A later single event on another account passes behind the repeated array (one queue, in order).
    const marker = await harness.account();
    const last = aChange(marker, 11, 9);
    await harness.publisher.publish(BALANCE_CHANGED, last);
    await harness.settled(marker, [last]);
    expect(harness.mailsTo(account)).toHaveLength(2);
    expect(harness.mailsTo(marker)).toHaveLength(1);
  });

  it('when an array overlaps events that came before on their own, then only its new events are handled', async () => {
    const account = await harness.account();
    const crossing = aChange(account, 20, 6);
    await harness.publisher.publish(BALANCE_CHANGED, crossing);
    await harness.settled(account, [crossing]);
    const zero = aChange(account, 6, 0);
    await harness.publisher.publish(BALANCE_CHANGED, [crossing, zero]);
    await harness.settled(account, [crossing, zero]);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual([
      'Low balance alert: WHOIS API has 6 credits left',
      'Zero balance alert: WHOIS API has no credits left',
    ]);
  });

  it('when the broker redelivers an array that overlaps an event handled before (redelivered=true after a consumer died unacknowledged), then each crossing is sent once', async () => {
    const account = await harness.account();
    const other = await harness.account();
    const crossing = aChange(account, 20, 4);
    await harness.publisher.publish(BALANCE_CHANGED, crossing);
    await harness.settled(account, [crossing]);
    await harness.service.stop();
    const events = [crossing, aChange(account, 4, 0), aChange(other, 40, 3)];
    await harness.publisher.publish(BALANCE_CHANGED, events);
    const connection = await amqp.connect(testServers.amqpUrl);
    try {
      // A consumer takes the array and dies before its ack: the broker requeues it as redelivered.
      const channel = await connection.createChannel();
      const taken = await eventually(async () => (await channel.get(harness.names.queue, { noAck: false })) || undefined);
      expect(JSON.parse(taken.content.toString())).toEqual(events);
      expect(taken.fields.redelivered).toBe(false);
      await channel.close();
      const peek = await connection.createChannel();
      const again = await eventually(async () => (await peek.get(harness.names.queue, { noAck: false })) || undefined);
      expect(again.fields.redelivered).toBe(true);
      await peek.close();
    } finally {
      await connection.close();
    }
    harness.service = await harness.start();
    await harness.settled(account, events.slice(0, 2));
    await harness.settled(other, [events[2]!]);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual([
      'Low balance alert: WHOIS API has 4 credits left',
      'Zero balance alert: WHOIS API has no credits left',
    ]);
    expect(harness.mailsTo(other).map((mail) => mail.subject)).toEqual(['Low balance alert: WHOIS API has 3 credits left']);
  });

  it('when an array names an unknown account beside a real crossing, then the crossing is sent once and the array is dead-lettered', async () => {
    const account = await harness.account();
    const connection = await amqp.connect(testServers.amqpUrl);
    try {
      const channel = await connection.createChannel();
      const before = (await channel.checkQueue(harness.names.deadLetterQueue)).messageCount;
      const events = [aChange(account, 20, 5), aChange({ id: 2_000_000_001 }, 20, 5)];
      await harness.publisher.publish(BALANCE_CHANGED, events);
      await eventually(async () =>
        (await channel.checkQueue(harness.names.deadLetterQueue)).messageCount === before + 1 ? true : undefined,
      );
      await harness.settled(account, [events[0]!]);
      expect(harness.mailsTo(account)).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });
});
