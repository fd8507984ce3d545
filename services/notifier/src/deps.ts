import type pg from 'pg';
import type { Logger } from '@platform/runtime';
import type { EventBus } from '@platform/events';
import type { Adapters, Mailer } from '@platform/infrastructure';
import type { NotifierStore } from './domain/notifier-store';
import { createNotifierStore } from './store/notifier-store';

/** The adapters the notifier runs on (openInfrastructure opens them; never URLs). */
export type NotifierInfrastructure = Pick<Adapters, 'pool' | 'directPool' | 'bus' | 'mailer'>;
export const NOTIFIER_NEEDS = ['pool', 'directPool', 'bus', 'mailer'] as const;

export interface NotifierDeps {
  logger: Logger;
  pool: pg.Pool;
  bus: EventBus;
  mailer: Mailer;
  /** The notifier's tables (and the user service's it reads) on `pool`. */
  store: NotifierStore;
}

/** The notifier's parts over ready adapters; it opens no connection itself. */
export function createDeps(logger: Logger, infrastructure: NotifierInfrastructure): NotifierDeps {
  const { pool, bus, mailer } = infrastructure;
  return { logger, pool, bus, mailer, store: createNotifierStore(pool) };
}
