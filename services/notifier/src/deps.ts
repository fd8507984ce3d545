import type pg from 'pg';
import { ConfigError, type Logger } from '@platform/common';
import { createPool } from '@platform/db';
import { createAmqpEventBus, type EventBus } from '@platform/events';
import type { NotifierConfig } from './config';
import { createFileMailer, createSmtpMailer, type Mailer } from './mailer';

/** What the embedded quickstart (or a test) hands in instead of opening its own. */
export interface ProvidedDeps {
  pool?: pg.Pool;
  bus?: EventBus;
  mailer?: Mailer;
}

export interface NotifierDeps {
  logger: Logger;
  pool: pg.Pool;
  bus: EventBus;
  mailer: Mailer;
  /** Closes only what createDeps opened. */
  close(): Promise<void>;
}

/** The only place the notifier opens Postgres, RabbitMQ and SMTP connections. */
export function createDeps(config: NotifierConfig, logger: Logger, provided: ProvidedDeps = {}): NotifierDeps {
  const missing = [
    !provided.pool && !config.databaseUrl ? 'DATABASE_URL: Required' : undefined,
    !provided.bus && !config.amqpUrl ? 'AMQP_URL: Required' : undefined,
    !provided.mailer && !config.smtpUrl && !config.outboxDir ? 'SMTP_URL: Required' : undefined,
  ].filter((problem): problem is string => problem !== undefined);
  if (missing.length > 0) throw new ConfigError(`invalid configuration: ${missing.join('; ')}`);

  const pool = provided.pool ?? createPool({ connectionString: config.databaseUrl as string, logger });
  const bus =
    provided.bus ??
    // Drain within the 10 s shutdown budget (CONTRACT §8); an unfinished message is simply redelivered.
    createAmqpEventBus({
      url: config.amqpUrl as string,
      exchange: config.exchange,
      logger,
      connectionName: 'notifier',
      drainTimeoutMs: 5000,
    });
  const mailer = provided.mailer ?? (config.smtpUrl ? createSmtpMailer(config.smtpUrl) : createFileMailer(config.outboxDir as string));
  // Bus first (drains the consumers), then the mailer, then the pool they use.
  const closers: Array<() => Promise<void>> = [];
  if (!provided.bus) closers.push(() => bus.close());
  if (!provided.mailer) closers.push(() => mailer.close());
  if (!provided.pool) closers.push(() => pool.end());

  return {
    logger,
    pool,
    bus,
    mailer,
    async close() {
      for (const close of closers) {
        try {
          await close();
        } catch (error) {
          logger.warn('error while closing', { error });
        }
      }
    },
  };
}
