import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from './logger';
import { backoffDelayMs, startWorkerLoop, type WorkerLoop, type WorkerLoopOptions } from './worker-loop';

interface Logged {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A real logger whose calls are recorded (level, message, fields). */
function recordingLogger(): { logger: Logger; logged: Logged[] } {
  const logger = createLogger({ service: 'worker-loop-test', level: 'error', stream: new PassThrough().resume() });
  const logged: Logged[] = [];
  for (const level of ['warn', 'info', 'debug'] as const) {
    jest.spyOn(logger, level).mockImplementation(((message: string, fields: Record<string, unknown>) => {
      logged.push({ level, message, fields });
      return logger;
    }) as never);
  }
  return { logger, logged };
}

/** A promise the test settles by hand. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Runs the timers that are due now and every promise they settle, without moving the clock. */
const settle = (): Promise<void> => jest.advanceTimersByTimeAsync(0);

describe('startWorkerLoop', () => {
  let loop: WorkerLoop | undefined;
  const start = (options: Partial<WorkerLoopOptions> & Pick<WorkerLoopOptions, 'work'>): WorkerLoop => {
    loop = startWorkerLoop({
      name: 'test loop',
      pollMs: 1000,
      backoff: { initialMs: 100, maxMs: 1000, jitter: 0 },
      logger: recordingLogger().logger,
      ...options,
    });
    return loop;
  };

  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });

  afterEach(async () => {
    const stopping = loop?.stop();
    loop = undefined;
    await jest.runOnlyPendingTimersAsync();
    await stopping;
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('when work keeps finding something, then the rounds follow at once; when it finds nothing, then the next waits pollMs', async () => {
    let left = 3;
    const work = jest.fn(() => Promise.resolve(left-- > 0));
    start({ work });
    await settle();
    expect(work).toHaveBeenCalledTimes(4);
    await jest.advanceTimersByTimeAsync(999);
    expect(work).toHaveBeenCalledTimes(4);
    await jest.advanceTimersByTimeAsync(1);
    expect(work).toHaveBeenCalledTimes(5);
  });

  it('when work keeps failing, then the pause doubles from initialMs up to maxMs, and the failure is logged once', async () => {
    const { logger, logged } = recordingLogger();
    const calls: number[] = [];
    start({
      logger,
      work: () => {
        calls.push(Date.now());
        return Promise.reject(new Error('database down'));
      },
    });
    await jest.advanceTimersByTimeAsync(100 + 200 + 400 + 800 + 1000 + 1000);
    const pauses = calls.slice(1).map((at, index) => at - (calls[index] ?? 0));
    expect(pauses).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(logged.filter((line) => line.level === 'warn')).toEqual([
      { level: 'warn', message: 'test loop failed, will retry', fields: { loop: 'test loop', error: 'database down' } },
    ]);
    expect(logged.filter((line) => line.level === 'debug')).toHaveLength(6);
  });

  it('when jitter is set, then each pause loses a random share of itself, never more than the cap', () => {
    const backoff = { initialMs: 100, maxMs: 1000, jitter: 0.5 };
    expect(backoffDelayMs(backoff, 1, () => 0)).toBe(100);
    expect(backoffDelayMs(backoff, 1, () => 0.5)).toBe(75);
    expect(backoffDelayMs(backoff, 3, () => 0.999_999)).toBe(200);
    expect(backoffDelayMs(backoff, 50, () => 0)).toBe(1000);
    expect(backoffDelayMs({ initialMs: 100, maxMs: 1000 }, 1, () => 0.5)).toBe(90);
  });

  it('when work succeeds after failures, then the backoff starts over, the recovery is logged and a new streak is logged again', async () => {
    const { logger, logged } = recordingLogger();
    const outcomes = ['fail', 'fail', 'fail', 'idle', 'fail'];
    const calls: number[] = [];
    start({
      logger,
      recovered: 'test loop publishing again',
      failure: (error) => ({ message: 'round failed', fields: { reason: (error as Error).message } }),
      work: () => {
        calls.push(Date.now());
        return outcomes.shift() === 'fail' ? Promise.reject(new Error('broker down')) : Promise.resolve(false);
      },
    });
    await jest.advanceTimersByTimeAsync(100 + 200 + 400 + 1000 + 100);
    expect(calls).toEqual([0, 100, 300, 700, 1700, 1800]);
    expect(logged.filter((line) => line.level !== 'debug')).toEqual([
      { level: 'warn', message: 'round failed', fields: { loop: 'test loop', reason: 'broker down' } },
      { level: 'info', message: 'test loop publishing again', fields: { loop: 'test loop', afterFailures: 3 } },
      { level: 'warn', message: 'round failed', fields: { loop: 'test loop', reason: 'broker down' } },
      { level: 'info', message: 'test loop publishing again', fields: { loop: 'test loop', afterFailures: 1 } },
    ]);
  });

  it('when stopped during a round, then stop() waits for it, the round sees its signal aborted, and no other round starts', async () => {
    const round = gate();
    let signal: AbortSignal | undefined;
    const work = jest.fn(async (given: AbortSignal) => {
      signal = given;
      await round.opened;
      return true;
    });
    const running = start({ work });
    await settle();
    let stopped = false;
    const stopping = running.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(signal?.aborted).toBe(true);
    expect(stopped).toBe(false);
    round.open();
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(work).toHaveBeenCalledTimes(1);
    await running.stop();
  });

  it('when stopped while idle or backing off, then stop() resolves at once', async () => {
    const idle = start({ work: () => Promise.resolve(false) });
    await settle();
    await idle.stop();
    const failing = start({ work: () => Promise.reject(new Error('down')), backoff: { initialMs: 60_000, maxMs: 60_000 } });
    await settle();
    await failing.stop();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('when its AbortSignal is aborted, then the loop stops', async () => {
    const controller = new AbortController();
    const work = jest.fn(() => Promise.resolve(false));
    start({ work, signal: controller.signal });
    await settle();
    controller.abort();
    await settle();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(work).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('when woken while idle, then the next round starts at once', async () => {
    const work = jest.fn(() => Promise.resolve(false));
    const running = start({ work });
    await settle();
    expect(work).toHaveBeenCalledTimes(1);
    running.wake();
    await settle();
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('when woken with a wake delay, then the wakes of the delay share one round that starts when it ends', async () => {
    const work = jest.fn(() => Promise.resolve(false));
    const running = start({ work, wakeDelayMs: 50 });
    await settle();
    running.wake();
    await jest.advanceTimersByTimeAsync(30);
    running.wake();
    running.wake();
    await jest.advanceTimersByTimeAsync(19);
    expect(work).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(work).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(100);
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('when stopped with a wake on its way, then no timer is left behind', async () => {
    const work = jest.fn(() => Promise.resolve(false));
    const running = start({ work, wakeDelayMs: 50 });
    await settle();
    running.wake();
    await running.stop();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('when woken during rounds, then rounds never overlap and one more round follows the one that was running', async () => {
    let active = 0;
    let most = 0;
    let round = gate();
    const work = jest.fn(async () => {
      active += 1;
      most = Math.max(most, active);
      await round.opened;
      active -= 1;
      return false;
    });
    const running = start({ work });
    await settle();
    running.wake();
    running.wake();
    running.wake();
    const first = round;
    round = gate();
    first.open();
    await settle();
    expect(work).toHaveBeenCalledTimes(2);
    round.open();
    await settle();
    expect(work).toHaveBeenCalledTimes(2);
    expect(most).toBe(1);
  });

  it('when woken while backing off, then only time ends the pause', async () => {
    const work = jest.fn(() => Promise.reject(new Error('down')));
    const running = start({ work });
    await settle();
    running.wake();
    await settle();
    expect(work).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('when delayFirst is set, then the first round waits pollMs', async () => {
    const work = jest.fn(() => Promise.resolve(false));
    start({ work, delayFirst: true });
    await jest.advanceTimersByTimeAsync(999);
    expect(work).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(work).toHaveBeenCalledTimes(1);
  });
});
