import winston from 'winston';
import { redact, redactText } from './redact';

export type Logger = winston.Logger;

const redactSecrets = winston.format((info) => {
  const cleaned = redact({ ...info }) as Record<string | symbol, unknown>;
  for (const key of Object.keys(info)) {
    if (key !== 'level') (info as Record<string, unknown>)[key] = cleaned[key];
  }
  if (typeof info.message === 'string') info.message = redactText(info.message);
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
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console();
  return winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { service: options.service },
    format: winston.format.combine(redactSecrets(), winston.format.timestamp(), winston.format.json()),
    transports: [transport],
  });
}
