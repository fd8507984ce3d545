import type pg from 'pg';
import type { Logger } from '@platform/runtime';
import type { EventBus, Subscription } from '@platform/events';
import type { Adapters, Mailer } from '@platform/infrastructure';
import type { SendOptions, TestNetwork } from '@platform/webhooks';
import type { NotifierConfig } from './config';
import type { NotifierStore } from './domain/notifier-store';
import { createNotifierStore } from './store/notifier-store';

/** The adapters the notifier runs on (openInfrastructure opens them; never URLs). */
export type NotifierInfrastructure = Pick<Adapters, 'pool' | 'directPool' | 'bus' | 'mailer'>;
export const NOTIFIER_NEEDS = ['pool', 'directPool', 'bus', 'mailer'] as const;

/** Seams beside the adapters (tests). */
export interface NotifierSeams {
  /** Extra CA certificates (PEM) the webhook sender trusts: tests' self-signed receivers. */
  webhookCa?: string;
  /** A test's names and receiver endpoint, for deliveries with the address rules on (never from configuration). */
  webhookNetwork?: TestNetwork;
  /** The clock the webhook dispatcher reads (tests move it days ahead; default the system's). */
  webhookClock?: () => number;
}

/** What readiness and the metrics know about the consumer, which starts after the app exists. */
export interface ConsumerProbe {
  isConsuming(): boolean;
  /** Messages in the consumer's dead-letter queue (rejects while it cannot tell). */
  deadLetterDepth(): Promise<number>;
  /** The consumer's subscription, once it is started. */
  attach(subscription: Subscription): void;
}

export interface NotifierDeps {
  logger: Logger;
  pool: pg.Pool;
  bus: EventBus;
  mailer: Mailer;
  /** The notifier's tables (and the user service's it reads) on `pool`. */
  store: NotifierStore;
  /** The webhook sender's rules (WEBHOOK_ALLOW_INSECURE) and, in tests, the CA of a self-signed receiver. */
  webhookSend: SendOptions;
  /** A test's clock for the webhook dispatcher; undefined: the system's. */
  webhookClock: (() => number) | undefined;
  consumer: ConsumerProbe;
  /** Nothing to stop: the adapters are closed by whoever opened them. */
  close(): Promise<void>;
}

function consumerProbe(): ConsumerProbe {
  let subscription: Subscription | undefined;
  return {
    isConsuming: () => subscription?.isActive() ?? false,
    deadLetterDepth: () => subscription?.deadLetterDepth() ?? Promise.reject(new Error('not consuming')),
    attach: (started) => {
      subscription = started;
    },
  };
}

/** The notifier's parts over ready adapters; it opens no connection itself. */
export function createDeps(
  config: NotifierConfig,
  logger: Logger,
  infrastructure: NotifierInfrastructure,
  seams: NotifierSeams = {},
): NotifierDeps {
  const { pool, bus, mailer } = infrastructure;
  return {
    logger,
    pool,
    bus,
    mailer,
    store: createNotifierStore(pool),
    webhookSend: { allowInsecure: config.webhookAllowInsecure, ca: seams.webhookCa, network: seams.webhookNetwork },
    webhookClock: seams.webhookClock,
    consumer: consumerProbe(),
    close: () => Promise.resolve(),
  };
}
