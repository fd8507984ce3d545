import { z } from 'zod';
import { env, parseEnv } from '@platform/common';
import { BALANCE_EXCHANGE, NOTIFIER_DEAD_LETTER_QUEUE, NOTIFIER_QUEUE } from '@platform/events';

export interface NotifierConfig {
  port: number;
  host: string;
  /** Undefined only when the embedded quickstart provides the pool. */
  databaseUrl: string | undefined;
  /** Undefined: the embedded quickstart provides an in-process bus. */
  amqpUrl: string | undefined;
  /** Undefined: e-mails go to `outboxDir` as files (embedded) or a provided mailer. */
  smtpUrl: string | undefined;
  outboxDir: string | undefined;
  mailFrom: string;
  settingsUrl: string;
  exchange: string;
  queue: string;
  deadLetterQueue: string;
  prefetch: number;
  /** How often unsent e-mails are retried, and the SMTP backoff (ms). */
  mailPollMs: number;
  mailRetryInitialMs: number;
  mailRetryMaxMs: number;
  /**
   * How long a claimed e-mail is left to the notifier that claimed it: after a crash, it is sent
   * by another once this has passed. Longer than an SMTP send can take (NOTIFIER_MAIL_LEASE_MS).
   */
  mailLeaseMs: number;
  /** Bearer token `/metrics` requires; undefined leaves it open. */
  metricsToken: string | undefined;
  logLevel: string;
}

function schema(requireInfrastructure: boolean) {
  const infrastructure = <T extends z.ZodTypeAny>(field: T) => (requireInfrastructure ? field : field.optional());
  return z.object({
    NOTIFIER_PORT: env.port(8084),
    HOST: z.string().default('127.0.0.1'),
    DATABASE_URL: infrastructure(env.url(['postgres', 'postgresql'])),
    AMQP_URL: infrastructure(env.url(['amqp', 'amqps'])),
    SMTP_URL: infrastructure(env.url(['smtp', 'smtps'])),
    OUTBOX_DIR: z.string().optional(),
    MAIL_FROM: z.string().default('Account alerts <alerts@localhost>'),
    USER_URL: z.string().url().default('http://127.0.0.1:8082'),
    SETTINGS_URL: z.string().url().optional(),
    BALANCE_EXCHANGE: z.string().default(BALANCE_EXCHANGE),
    NOTIFIER_QUEUE: z.string().default(NOTIFIER_QUEUE),
    NOTIFIER_DEAD_LETTER_QUEUE: z.string().optional(),
    NOTIFIER_PREFETCH: z.coerce.number().int().min(1).max(1000).default(10),
    NOTIFIER_MAIL_POLL_MS: env.positiveInt(1000),
    NOTIFIER_MAIL_RETRY_INITIAL_MS: env.positiveInt(1000),
    NOTIFIER_MAIL_RETRY_MAX_MS: env.positiveInt(300_000),
    NOTIFIER_MAIL_LEASE_MS: env.positiveInt(60_000),
    METRICS_TOKEN: env.optionalSecret(16),
    LOG_LEVEL: env.logLevel(),
  });
}

/**
 * The notifier's configuration. With `requireInfrastructure` (a standalone start) DATABASE_URL,
 * AMQP_URL and SMTP_URL are required; the embedded quickstart passes false and provides them.
 * `SETTINGS_URL` defaults to the alert settings on the account page the user service serves (`/account/#alerts`).
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): NotifierConfig {
  const parsed = parseEnv(schema(requireInfrastructure), environment);
  const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const queue = parsed.NOTIFIER_QUEUE;
  return {
    port: parsed.NOTIFIER_PORT,
    host: parsed.HOST,
    databaseUrl: str(parsed.DATABASE_URL),
    amqpUrl: str(parsed.AMQP_URL),
    smtpUrl: str(parsed.SMTP_URL),
    outboxDir: parsed.OUTBOX_DIR,
    mailFrom: parsed.MAIL_FROM,
    settingsUrl: parsed.SETTINGS_URL ?? `${parsed.USER_URL.replace(/\/+$/, '')}/account/#alerts`,
    exchange: parsed.BALANCE_EXCHANGE,
    queue,
    deadLetterQueue: parsed.NOTIFIER_DEAD_LETTER_QUEUE ?? (queue === NOTIFIER_QUEUE ? NOTIFIER_DEAD_LETTER_QUEUE : `${queue}.dead`),
    prefetch: parsed.NOTIFIER_PREFETCH,
    mailPollMs: parsed.NOTIFIER_MAIL_POLL_MS,
    mailRetryInitialMs: parsed.NOTIFIER_MAIL_RETRY_INITIAL_MS,
    mailRetryMaxMs: parsed.NOTIFIER_MAIL_RETRY_MAX_MS,
    mailLeaseMs: parsed.NOTIFIER_MAIL_LEASE_MS,
    metricsToken: parsed.METRICS_TOKEN,
    logLevel: parsed.LOG_LEVEL,
  };
}
