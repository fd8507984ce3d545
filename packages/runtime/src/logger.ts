import winston from 'winston';
import { redact, redactText } from './redact';
import { activeTraceIds } from './trace-context';

export type Logger = winston.Logger;

// `logger.error(err)` hands winston the Error itself, whose message and stack are not
// enumerable and would vanish from the JSON line; they are copied out (redacted) first.
const redactSecrets = winston.format((info) => {
  const record = info instanceof Error ? Object.assign({}, info, { message: info.message, stack: info.stack }) : info;
  const cleaned = redact({ ...record }) as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== 'level') (record as Record<string, unknown>)[key] = cleaned[key];
  }
  if (typeof record.message === 'string') record.message = redactText(record.message);
  return record;
});

// With tracing on, a line written inside a span carries its ids beside the request id.
const traceIds = winston.format((info) => {
  const ids = activeTraceIds();
  if (ids !== undefined) Object.assign(info, ids);
  return info;
});

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to capture them. */
  stream?: NodeJS.WritableStream;
}

/** winston JSON logger with secret redaction applied to every record. */
export function createLogger(options: LoggerOptions): Logger {
  const transport = options.stream ? new winston.transports.Stream({ stream: options.stream }) : new winston.transports.Console();
  return winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { service: options.service },
    format: winston.format.combine(traceIds(), redactSecrets(), winston.format.timestamp(), winston.format.json()),
    transports: [transport],
  });
}
