import { z } from 'zod';
import { env, nodeEnv, parseEnv, refuseTestSwitchesInProduction } from '@platform/runtime';
import { BALANCE_EXCHANGE, DEFAULT_DELIVERY_LIMIT, NOTIFIER_DEAD_LETTER_QUEUE, NOTIFIER_QUEUE } from '@platform/events';
import { infrastructureVariables } from '@platform/infrastructure';

/**
 * The account page's public address: ACCOUNT_PAGE_URL; else, as before it existed, SETTINGS_URL
 * without its fragment; else (outside production) the page USER_URL serves.
 */
function accountPageUrl(parsed: { ACCOUNT_PAGE_URL?: string | undefined; SETTINGS_URL?: string | undefined; USER_URL: string }): string {
  if (parsed.ACCOUNT_PAGE_URL !== undefined) return parsed.ACCOUNT_PAGE_URL;
  if (parsed.SETTINGS_URL !== undefined) return parsed.SETTINGS_URL.replace(/#.*$/, '');
  return `${parsed.USER_URL.replace(/\/+$/, '')}/account/`;
}

/** The notifier's variables, and the configuration they make: its type is this schema's output. */
function schema(requireInfrastructure: boolean) {
  const { DATABASE_URL, DATABASE_DIRECT_URL, DATABASE_POOL_MAX, AMQP_URL, SMTP_URL } = infrastructureVariables(requireInfrastructure);
  return z
    .object({
      NOTIFIER_PORT: env.port(8084),
      HOST: z.string().default('127.0.0.1'),
      DATABASE_URL,
      DATABASE_DIRECT_URL,
      DATABASE_POOL_MAX,
      AMQP_URL,
      SMTP_URL,
      OUTBOX_DIR: z.string().optional(),
      BRAND_NAME: z.string().min(1).max(100).default('Account access'),
      MAIL_FROM: z.string().optional(),
      TOP_UP_URL: env.url(['https', 'http']).optional(),
      WEBHOOK_ALLOW_INSECURE: env.bool(false),
      NODE_ENV: nodeEnv(),
      NOTIFIER_WEBHOOK_POLL_MS: env.positiveInt(1000),
      NOTIFIER_WEBHOOK_RETRY_INITIAL_MS: env.positiveInt(30_000),
      NOTIFIER_WEBHOOK_RETRY_MAX_MS: env.positiveInt(6 * 3600_000),
      // Longer than a delivery can take (10 s timeout), so that no other replica claims a row being sent.
      NOTIFIER_WEBHOOK_LEASE_MS: z.coerce.number().int().min(15_000).default(60_000),
      USER_URL: z.string().url().default('http://127.0.0.1:8082'),
      ACCOUNT_PAGE_URL: env.url(['https', 'http']).optional(),
      SETTINGS_URL: z.string().url().optional(),
      BALANCE_EXCHANGE: z.string().default(BALANCE_EXCHANGE),
      NOTIFIER_QUEUE: z.string().default(NOTIFIER_QUEUE),
      NOTIFIER_DEAD_LETTER_QUEUE: z.string().optional(),
      NOTIFIER_PREFETCH: z.coerce.number().int().min(1).max(1000).default(10),
      NOTIFIER_DELIVERY_LIMIT: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_DELIVERY_LIMIT),
      NOTIFIER_MAIL_POLL_MS: env.positiveInt(1000),
      NOTIFIER_MAIL_RETRY_INITIAL_MS: env.positiveInt(1000),
      NOTIFIER_MAIL_RETRY_MAX_MS: env.positiveInt(300_000),
      NOTIFIER_MAIL_LEASE_MS: env.positiveInt(60_000),
      // A processed event id must outlive every redelivery and republish of its event (the user
      // service keeps published events OUTBOX_RETENTION_HOURS, default 24).
      NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS: z.coerce.number().int().min(24).default(168),
      NOTIFIER_MAIL_RETENTION_HOURS: z.coerce.number().int().min(0).default(168),
      NOTIFIER_SWEEP_MS: env.positiveInt(60_000),
      METRICS_TOKEN: env.optionalSecret(16),
      LOG_LEVEL: env.logLevel(),
    })
    .superRefine(refuseTestSwitchesInProduction(['WEBHOOK_ALLOW_INSECURE']))
    .superRefine((parsed, context) => {
      // A production notifier must not link every customer to a loopback default.
      if (parsed.NODE_ENV === 'production' && parsed.ACCOUNT_PAGE_URL === undefined && parsed.SETTINGS_URL === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['ACCOUNT_PAGE_URL'],
          message: "required when NODE_ENV=production: the account page's public address, linked from every e-mail",
        });
      }
    })
    .transform((parsed) => ({
      port: parsed.NOTIFIER_PORT,
      host: parsed.HOST,
      /** Read by openInfrastructure only; undefined only in the embedded quickstart. */
      databaseUrl: parsed.DATABASE_URL,
      databaseDirectUrl: parsed.DATABASE_DIRECT_URL,
      databasePoolMax: parsed.DATABASE_POOL_MAX,
      amqpUrl: parsed.AMQP_URL,
      /** Undefined: e-mails go to `outboxDir` as `.eml` files (embedded). */
      smtpUrl: parsed.SMTP_URL,
      outboxDir: parsed.OUTBOX_DIR,
      /** BRAND_NAME: the product's name in the e-mails (and, by default, their sender's). */
      brandName: parsed.BRAND_NAME,
      /** MAIL_FROM: the alerts' sender; default `<BRAND_NAME> <alerts@localhost>`. */
      mailFrom: parsed.MAIL_FROM ?? `${parsed.BRAND_NAME.replace(/[<>",;\\]/g, '')} <alerts@localhost>`,
      /** The account page as customers reach it, linked from every e-mail (accountPageUrl). */
      accountUrl: accountPageUrl(parsed),
      /** The page's alert settings (SETTINGS_URL, else the account page's `#alerts`). */
      settingsUrl: parsed.SETTINGS_URL ?? `${accountPageUrl(parsed)}#alerts`,
      /** TOP_UP_URL: where the e-mails send a customer to buy credits (unset: they name no such action). */
      topUpUrl: parsed.TOP_UP_URL,
      /** Webhooks may go to http and to any address (WEBHOOK_ALLOW_INSECURE; development and tests only). */
      webhookAllowInsecure: parsed.WEBHOOK_ALLOW_INSECURE,
      /** Webhook dispatcher: poll, first retry (doubling up to the max) and claim lease (ms). */
      webhookPollMs: parsed.NOTIFIER_WEBHOOK_POLL_MS,
      webhookRetryInitialMs: parsed.NOTIFIER_WEBHOOK_RETRY_INITIAL_MS,
      webhookRetryMaxMs: parsed.NOTIFIER_WEBHOOK_RETRY_MAX_MS,
      webhookLeaseMs: parsed.NOTIFIER_WEBHOOK_LEASE_MS,
      exchange: parsed.BALANCE_EXCHANGE,
      queue: parsed.NOTIFIER_QUEUE,
      deadLetterQueue:
        parsed.NOTIFIER_DEAD_LETTER_QUEUE ??
        (parsed.NOTIFIER_QUEUE === NOTIFIER_QUEUE ? NOTIFIER_DEAD_LETTER_QUEUE : `${parsed.NOTIFIER_QUEUE}.dead`),
      prefetch: parsed.NOTIFIER_PREFETCH,
      /** Deliveries of one event before the broker dead-letters it (the quorum queue's x-delivery-limit; NOTIFIER_DELIVERY_LIMIT). */
      deliveryLimit: parsed.NOTIFIER_DELIVERY_LIMIT,
      /** How often unsent e-mails are retried, and the SMTP backoff (ms). */
      mailPollMs: parsed.NOTIFIER_MAIL_POLL_MS,
      mailRetryInitialMs: parsed.NOTIFIER_MAIL_RETRY_INITIAL_MS,
      mailRetryMaxMs: parsed.NOTIFIER_MAIL_RETRY_MAX_MS,
      /**
       * How long a claimed e-mail is left to the notifier that claimed it: after a crash, it is sent
       * by another once this has passed. Longer than an SMTP send can take (NOTIFIER_MAIL_LEASE_MS).
       */
      mailLeaseMs: parsed.NOTIFIER_MAIL_LEASE_MS,
      /** How long a handled event's id is kept against redelivery, at least 24 h (NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS). */
      processedEventRetentionHours: parsed.NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS,
      /** How long a sent e-mail stays in the mail outbox (NOTIFIER_MAIL_RETENTION_HOURS; 0: at the next sweep). Unsent ones stay. */
      mailRetentionHours: parsed.NOTIFIER_MAIL_RETENTION_HOURS,
      /** Pause between retention sweeps (NOTIFIER_SWEEP_MS). */
      sweepMs: parsed.NOTIFIER_SWEEP_MS,
      /** Bearer token `/metrics` requires; undefined leaves it open. */
      metricsToken: parsed.METRICS_TOKEN,
      logLevel: parsed.LOG_LEVEL,
    }));
}

export type NotifierConfig = z.infer<ReturnType<typeof schema>>;

/**
 * The notifier's configuration. With `requireInfrastructure` (a standalone start) DATABASE_URL,
 * AMQP_URL and SMTP_URL are required; the embedded quickstart passes false and openInfrastructure
 * stands in for them. `SETTINGS_URL` defaults to the alert settings on the account page
 * (`<ACCOUNT_PAGE_URL>#alerts`).
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): NotifierConfig {
  return parseEnv(schema(requireInfrastructure), environment);
}
