import { errorMessage } from './error-message';
import type { Logger } from './logger';

export interface UntilRecordedOptions {
  /** Names what is recorded in the log (`e-mail marked sent`). */
  what: string;
  /** The pause between tries. */
  everyMs: number;
  /** Stops trying (the last error is thrown): the process is stopping. */
  signal: AbortSignal;
  logger: Logger;
  fields?: Record<string, unknown>;
}

/**
 * Tries `write` until it succeeds: the record of a side effect that has already happened (an
 * e-mail the SMTP server accepted, a webhook its receiver acknowledged). Given up on the first
 * error, the record would be missing and the effect repeated once its lease ran out: a pooler
 * restart or a failover would send the e-mail twice. Only a stop ends it early (the last error
 * is thrown), which leaves the same window as a crash.
 */
export async function untilRecorded(write: () => Promise<void>, options: UntilRecordedOptions): Promise<void> {
  for (let failures = 0; ; failures += 1) {
    try {
      await write();
      if (failures > 0) options.logger.info(`${options.what} after ${failures} failures`, options.fields);
      return;
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (failures === 0)
        options.logger.warn(`${options.what}: not recorded yet, will retry`, { ...options.fields, error: errorMessage(error) });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, options.everyMs);
        timer.unref();
        function done(): void {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', done);
          resolve();
        }
        options.signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}
