import { BALANCE_CHANGED, type BalanceChanged } from './balance-changed';
import { InvalidEventError, PoisonMessageError, UnroutableEventError } from './event-bus';
import { createInProcessEventBus } from './in-process-event-bus';
import { aBalanceChange } from '@platform/testing';

async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('in-process event bus', () => {
  it('when an event is published, then the bound consumer receives a copy asynchronously', async () => {
    const bus = createInProcessEventBus();
    const received: BalanceChanged[] = [];
    bus.consume('q', BALANCE_CHANGED, async (event) => {
      received.push(event);
      return Promise.resolve();
    });
    const event = aBalanceChange();
    await bus.publish(BALANCE_CHANGED, event);
    expect(received).toHaveLength(0);
    await until(() => received.length === 1);
    expect(received[0]).toEqual(event);
    expect(received[0]).not.toBe(event);
    await bus.close();
  });

  it('when the payload is invalid, then publish rejects with InvalidEventError', async () => {
    const bus = createInProcessEventBus();
    bus.consume('q', BALANCE_CHANGED, () => Promise.resolve());
    await expect(bus.publish(BALANCE_CHANGED, { ...aBalanceChange(), credits: -1 })).rejects.toBeInstanceOf(InvalidEventError);
    await bus.close();
  });

  it('when no queue is bound, then publish rejects as unroutable instead of dropping the event', async () => {
    const bus = createInProcessEventBus();
    await expect(bus.publish(BALANCE_CHANGED, aBalanceChange())).rejects.toBeInstanceOf(UnroutableEventError);
    await bus.close();
  });

  it('when the handler fails, then the event is redelivered with redelivered=true until it succeeds', async () => {
    const bus = createInProcessEventBus({ retryInitialMs: 5 });
    const deliveries: boolean[] = [];
    bus.consume('q', BALANCE_CHANGED, async (_event, delivery) => {
      deliveries.push(delivery.redelivered);
      if (deliveries.length < 3) throw new Error('database down');
      return Promise.resolve();
    });
    await bus.publish(BALANCE_CHANGED, aBalanceChange());
    await until(() => deliveries.length === 3);
    expect(deliveries).toEqual([false, true, true]);
    await bus.close();
  });

  it('when the handler says poison, then the event is dead-lettered, not retried, and counted in the dead-letter depth', async () => {
    const bus = createInProcessEventBus({ retryInitialMs: 5 });
    let calls = 0;
    bus.consume(
      'q',
      BALANCE_CHANGED,
      async () => {
        calls += 1;
        return Promise.reject(new PoisonMessageError('unknown account'));
      },
      { deadLetterQueue: 'q.dlq' },
    );
    const subscription = bus.consume('q2', BALANCE_CHANGED, () => Promise.reject(new PoisonMessageError('unknown account')), {
      deadLetterQueue: 'q2.dlq',
    });
    expect(await subscription.deadLetterDepth()).toBe(0);
    const event = aBalanceChange();
    await bus.publish(BALANCE_CHANGED, event);
    await until(() => bus.deadLetters('q.dlq').length === 1 && bus.deadLetters('q2.dlq').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toBe(1);
    expect(bus.deadLetters('q.dlq')).toEqual([event]);
    expect(await subscription.deadLetterDepth()).toBe(1);
    await bus.close();
  });

  it('when the consumer is cancelled, then the queue keeps events for the next consumer', async () => {
    const bus = createInProcessEventBus();
    const first = bus.consume('q', BALANCE_CHANGED, () => Promise.resolve());
    await first.cancel();
    expect(first.isActive()).toBe(false);
    const event = aBalanceChange();
    await bus.publish(BALANCE_CHANGED, event);
    const received: string[] = [];
    bus.consume('q', BALANCE_CHANGED, async (delivered) => {
      received.push(delivered.id);
      return Promise.resolve();
    });
    await until(() => received.length === 1);
    expect(received).toEqual([event.id]);
    await bus.close();
  });

  it('when prefetch is 2, then at most two handlers run at once', async () => {
    const bus = createInProcessEventBus();
    let running = 0;
    let peak = 0;
    let done = 0;
    bus.consume(
      'q',
      BALANCE_CHANGED,
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running -= 1;
        done += 1;
      },
      { prefetch: 2 },
    );
    for (let index = 0; index < 6; index += 1) await bus.publish(BALANCE_CHANGED, aBalanceChange());
    await until(() => done === 6);
    expect(peak).toBe(2);
    await bus.close();
  });

  it('when an array of events is published (the embedded quickstart’s batches), then the handler gets each event, in order, and a transient failure redelivers the whole array', async () => {
    const bus = createInProcessEventBus({ retryInitialMs: 5 });
    const calls: Array<[string, boolean]> = [];
    const events = [aBalanceChange(), aBalanceChange(), aBalanceChange()];
    let failed = false;
    bus.consume('q', BALANCE_CHANGED, async (event, delivery) => {
      calls.push([event.id, delivery.redelivered]);
      if (event.id === events[2]?.id && !failed) {
        failed = true;
        throw new Error('database down');
      }
      return Promise.resolve();
    });
    await bus.publish(BALANCE_CHANGED, events);
    await until(() => calls.length === 6);
    expect(calls).toEqual([...events.map((event) => [event.id, false]), ...events.map((event) => [event.id, true])]);
    await bus.close();
  });

  it('when one event of an array is poison, then the others are handled and the array is dead-lettered whole', async () => {
    const bus = createInProcessEventBus({ retryInitialMs: 5 });
    const handled: string[] = [];
    const events = [aBalanceChange({ accountId: 5 }), aBalanceChange({ accountId: 999 })];
    const subscription = bus.consume('q', BALANCE_CHANGED, async (event) => {
      if (event.accountId === 999) throw new PoisonMessageError('unknown account');
      handled.push(event.id);
      return Promise.resolve();
    });
    await bus.publish(BALANCE_CHANGED, events);
    await until(() => bus.deadLetters('q.dead').length === 1);
    expect(bus.deadLetters('q.dead')[0]).toEqual(events);
    expect(handled).toEqual([events[0]?.id]);
    expect(await subscription.deadLetterDepth()).toBe(1);
    await expect(bus.publish(BALANCE_CHANGED, [])).rejects.toBeInstanceOf(InvalidEventError);
    await bus.close();
  });

  it('when closed, then it waits for handlers in flight and refuses new events', async () => {
    const bus = createInProcessEventBus();
    let finished = false;
    let started = false;
    bus.consume('q', BALANCE_CHANGED, async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 30));
      finished = true;
    });
    await bus.publish(BALANCE_CHANGED, aBalanceChange());
    await until(() => started);
    await bus.close();
    expect(finished).toBe(true);
    await expect(bus.publish(BALANCE_CHANGED, aBalanceChange())).rejects.toThrow('closed');
    await expect(bus.ping()).rejects.toThrow('closed');
  });
});
