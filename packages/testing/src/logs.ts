import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from '@platform/runtime';

/** A real logger whose JSON lines are kept in memory, for asserting what reaches the logs. */
export function captureLogs(service = 'test'): { logger: Logger; text(): string; lines(): Array<Record<string, unknown>> } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const logger = createLogger({ service, level: 'debug', stream });
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** A logger that discards everything, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return createLogger({ service: 'test', level: 'error', stream: new PassThrough().resume() });
}
