import { errorMessage } from './error-message';
import type { Logger } from './logger';

/** Log fields of a failure: its message plus whatever the loop adds (an event id, a count). */
type LogFields = Record<string, unknown>;

export interface WorkerLoopBackoff {
  /** The pause after the first failure of a streak. */
  initialMs: number;
  /** The longest pause: the pause doubles after each further failure up to this. */
  maxMs: number;
  /** Share of each pause taken off at random, 0–1, so that replicas do not retry in step. Default 0.2. */
  jitter?: number;
}

export interface WorkerLoopOptions {
  /** Names the loop in its logs. */
  name: string;
  /** The pause after a round that found nothing to do; wake() ends it early. */
  pollMs: number;
  /**
   * How long a wake() waits before it ends the pause, so that the wakes of a busy moment share
   * one round (a relay woken by every commit claims the events of several). Default 0: at once.
   */
  wakeDelayMs?: number;
  /** The pause after a round that threw; only time ends it (waking would hammer a server that is down). */
  backoff: WorkerLoopBackoff;
  /**
   * One round of work: resolves true when it did something (the next round starts at once),
   * false when there was nothing to do (the loop waits `pollMs` or a wake()). `signal` is
   * aborted when the loop is stopping: a long round may end early and give its work back.
   */
  work: (signal: AbortSignal) => Promise<boolean>;
  /** Stops the loop when aborted (as stop() does). */
  signal?: AbortSignal;
  logger: Logger;
  /** Waits `pollMs` (or a wake()) before the first round instead of starting at once. */
  delayFirst?: boolean;
  /**
   * How the first failure of a streak is logged (warn); later failures of the same streak are
   * logged at debug only. Default: `<name> failed, will retry` with the error's message.
   */
  failure?: (error: unknown) => { message: string; fields?: LogFields };
  /** Logged (info, with `afterFailures`) by the first round that succeeds after a streak. Default `<name> working again`. */
  recovered?: string;
  /** Jitter's source of randomness, 0 ≤ random() < 1 (tests). Default Math.random. */
  random?: () => number;
}

export interface WorkerLoop {
  /** Ends the idle pause now (something may be there to do); a round already running is followed by another. */
  wake(): void;
  /** Lets the running round finish, starts no other; resolves once the loop is idle. Safe to call twice. */
  stop(): Promise<void>;
}

/** The pause after the `failures`-th failure in a row: initial · 2^(failures-1), capped, less up to `jitter` of it. */
export function backoffDelayMs(backoff: WorkerLoopBackoff, failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return Math.round(ceiling * (1 - (backoff.jitter ?? 0.2) * random()));
}

/**
 * The one shape of every background loop beside a listener (outbox relay, mail dispatcher,
 * catalogue poller, sweeper): rounds of `work()` one at a time, at once while there is work,
 * every `pollMs` (or on wake()) while there is none, with exponential backoff and jitter after
 * a failure, logged once per streak. Its timers are unref'd: a loop never keeps a process alive.
 */
export function startWorkerLoop(options: WorkerLoopOptions): WorkerLoop {
  const { name, logger } = options;
  const random = options.random ?? Math.random;
  const stopping = new AbortController();
  const stop = (): void => stopping.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  let woken = false;
  let endIdle: (() => void) | undefined;

  /** Sleeps `ms`; stopping ends every sleep, wake() an idle one (and one it asked for during the round). */
  const pause = (ms: number, idle: boolean): Promise<void> =>
    new Promise((resolve) => {
      if (stopping.signal.aborted || (idle && woken)) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        endIdle = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      stopping.signal.addEventListener('abort', done, { once: true });
      if (idle) endIdle = done;
    });

  const describe = (error: unknown): { message: string; fields?: LogFields } =>
    options.failure?.(error) ?? { message: `${name} failed, will retry`, fields: { error: errorMessage(error) } };

  const run = async (): Promise<void> => {
    let failures = 0;
    if (options.delayFirst) await pause(options.pollMs, true);
    while (!stopping.signal.aborted) {
      // A wake() from now on may concern something this round does not see: it earns another.
      woken = false;
      let busy: boolean;
      try {
        busy = await options.work(stopping.signal);
      } catch (error) {
        failures += 1;
        const retryInMs = backoffDelayMs(options.backoff, failures, random);
        const { message, fields } = describe(error);
        if (failures === 1) logger.warn(message, { ...fields, loop: name });
        else logger.debug(message, { ...fields, loop: name, failures, retryInMs });
        await pause(retryInMs, false);
        continue;
      }
      if (failures > 0) logger.info(options.recovered ?? `${name} working again`, { loop: name, afterFailures: failures });
      failures = 0;
      if (!busy) await pause(options.pollMs, true);
    }
  };

  const ring = (): void => {
    woken = true;
    endIdle?.();
  };
  let delayedWake: NodeJS.Timeout | undefined;
  const running = run().finally(() => {
    clearTimeout(delayedWake);
    options.signal?.removeEventListener('abort', stop);
  });
  return {
    wake() {
      if (!options.wakeDelayMs) {
        ring();
        return;
      }
      // The wakes that come meanwhile are answered by the one already on its way.
      if (delayedWake !== undefined) return;
      delayedWake = setTimeout(() => {
        delayedWake = undefined;
        ring();
      }, options.wakeDelayMs);
      delayedWake.unref();
    },
    stop() {
      stop();
      return running;
    },
  };
}
