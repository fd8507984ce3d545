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
      NOTIFIER_PORT: env.port(8084).describe("The notifier's port (0: any free one)."),
      HOST: env.host(),
      DATABASE_URL,
      DATABASE_DIRECT_URL,
      DATABASE_POOL_MAX,
      AMQP_URL,
      SMTP_URL,
      OUTBOX_DIR: z
        .string()
        .optional()
        .describe('Where e-mails are written as `.eml` files when `SMTP_URL` is unset. Under `pnpm start`: `<DATA_DIR>/outbox`.'),
      BRAND_NAME: z
        .string()
        .min(1)
        .max(100)
        .default('Account access')
        .describe(
          "The product's name: on the account page (user), in the e-mails and, unless `MAIL_FROM` is set, as their sender's name (notifier); at most 100 characters.",
        ),
      MAIL_FROM: z
        .string()
        .optional()
        .describe("The e-mails' sender. Unset: `<BRAND_NAME> <alerts@localhost>`, e.g. `Account access <alerts@localhost>`."),
      TOP_UP_URL: env
        .url(['https', 'http'])
        .optional()
        .describe(
          "The operator's billing page (`https` or `http`), where the account page and the e-mails send a customer to buy credits. Unset: no such link.",
        ),
      WEBHOOK_ALLOW_INSECURE: env
        .bool(false)
        .describe(
          'Development and tests only: webhooks may go to `http` and to any address (the address checks are lifted). Refused at start when `NODE_ENV=production`; a warning in the log otherwise.',
        ),
      NODE_ENV: nodeEnv(),
      NOTIFIER_WEBHOOK_POLL_MS: env.positiveInt(1000).describe('How often the webhook dispatcher looks for due deliveries (ms).'),
      NOTIFIER_WEBHOOK_RETRY_INITIAL_MS: env
        .positiveInt(30_000)
        .describe('First retry of a failed webhook delivery (ms), doubling up to `NOTIFIER_WEBHOOK_RETRY_MAX_MS`.'),
      NOTIFIER_WEBHOOK_RETRY_MAX_MS: env.positiveInt(6 * 3600_000).describe('Longest pause between retries of a webhook delivery (ms).'),
      // Longer than a delivery can take (10 s timeout), so that no other replica claims a row being sent.
      NOTIFIER_WEBHOOK_LEASE_MS: z.coerce
        .number()
        .int()
        .min(15_000)
        .default(60_000)
        .describe(
          'How long a webhook delivery being sent is left to the replica that claimed it (ms; at least 15000, as a delivery times out after 10 s).',
        ),
      USER_URL: z
        .string()
        .url()
        .default('http://127.0.0.1:8082')
        .describe(
          "The user service's base URL: the notifier links the account page under it when `ACCOUNT_PAGE_URL` and `SETTINGS_URL` are unset; `pnpm admin`, `pnpm client` and product apps call it.",
        ),
      ACCOUNT_PAGE_URL: env
        .url(['https', 'http'])
        .optional()
        .describe(
          "The account page as customers' browsers reach it, linked from every e-mail; required when `NODE_ENV=production`. Unset: `SETTINGS_URL` without its `#…`, else `<USER_URL>/account/`; under `pnpm start`, the page of the user service it started.",
        ),
      SETTINGS_URL: z
        .string()
        .url()
        .optional()
        .describe('The alert settings, linked from the e-mails. Unset: `<ACCOUNT_PAGE_URL>#alerts`.'),
      BALANCE_EXCHANGE: z
        .string()
        .default(BALANCE_EXCHANGE)
        .describe('The topic exchange of the `balance.changed` events: the user service publishes to it, the notifier binds its queue.'),
      NOTIFIER_QUEUE: z.string().default(NOTIFIER_QUEUE).describe("The notifier's quorum queue of balance events."),
      NOTIFIER_DEAD_LETTER_QUEUE: z
        .string()
        .optional()
        .describe('Where events go after `NOTIFIER_DELIVERY_LIMIT` deliveries. Unset: `<NOTIFIER_QUEUE>.dead`.'),
      NOTIFIER_PREFETCH: z.coerce
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(10)
        .describe('Unacknowledged events the notifier holds at once (1–1000).'),
      NOTIFIER_DELIVERY_LIMIT: z.coerce
        .number()
        .int()
        .min(1)
        .max(10_000)
        .default(DEFAULT_DELIVERY_LIMIT)
        .describe("Deliveries of one event before RabbitMQ dead-letters it (the quorum queue's `x-delivery-limit`)."),
      NOTIFIER_MAIL_POLL_MS: env.positiveInt(1000).describe('How often unsent e-mails are retried (ms).'),
      NOTIFIER_MAIL_RETRY_INITIAL_MS: env
        .positiveInt(1000)
        .describe('First retry of a failed SMTP send (ms), doubling up to `NOTIFIER_MAIL_RETRY_MAX_MS`.'),
      NOTIFIER_MAIL_RETRY_MAX_MS: env.positiveInt(300_000).describe('Longest pause between retries of an SMTP send (ms).'),
      NOTIFIER_MAIL_LEASE_MS: env
        .positiveInt(60_000)
        .describe(
          'How long an e-mail being sent is left to the notifier that claimed it (ms); after a crash another sends it once this has passed. Keep it above the SMTP timeouts.',
        ),
      // A processed event id must outlive every redelivery and republish of its event (the user
      // service keeps published events OUTBOX_RETENTION_HOURS, default 24).
      NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS: z.coerce
        .number()
        .int()
        .min(24)
        .default(168)
        .describe("How long a handled event's id is kept against redelivery (hours, at least 24)."),
      NOTIFIER_MAIL_RETENTION_HOURS: z.coerce
        .number()
        .int()
        .min(0)
        .default(168)
        .describe('How long a sent e-mail stays in the mail outbox (hours; 0: until the next sweep). Unsent ones stay.'),
      NOTIFIER_SWEEP_MS: env.positiveInt(60_000).describe("Pause between the notifier's retention sweeps (ms)."),
      METRICS_TOKEN: env.metricsToken(),
      METRICS_PORT: env.metricsPort(),
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
      metricsPort: parsed.METRICS_PORT,
      logLevel: parsed.LOG_LEVEL,
    }));
}

export type NotifierConfig = z.infer<ReturnType<typeof schema>>;

/** The variables' schema, read by scripts/config-docs.ts to write docs/configuration.md. */
export { schema as configSchema };

/**
 * The notifier's configuration. With `requireInfrastructure` (a standalone start) DATABASE_URL,
 * AMQP_URL and SMTP_URL are required; the embedded quickstart passes false and openInfrastructure
 * stands in for them. `SETTINGS_URL` defaults to the alert settings on the account page
 * (`<ACCOUNT_PAGE_URL>#alerts`).
 */
export function loadConfig(environment: NodeJS.ProcessEnv, { requireInfrastructure = true } = {}): NotifierConfig {
  return parseEnv(schema(requireInfrastructure), environment);
}
