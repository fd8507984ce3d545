import type { Logger } from '@platform/runtime';
import type { Category } from '../domain/category';
import { buildCatalogSnapshot, type CatalogSnapshot } from './catalog-snapshot';

/** What the cache reads: the whole set with its version, or the version alone (cheap, polled). */
export interface CatalogSource {
  load(): Promise<{ version: number; categories: Category[] }>;
  version(): Promise<number>;
}

/**
 * The category list served from memory. It is rebuilt when the category-set version in Postgres
 * moves: at once on the instance that made a change (refresh()), within one poll interval on
 * every other replica.
 */
export interface CatalogCache {
  /** The current snapshot; throws before the first load. */
  current(): CatalogSnapshot;
  readonly loaded: boolean;
  /** Reloads now. Concurrent calls share loads; a call made during a load gets a later one. */
  refresh(): Promise<void>;
  /** Starts polling the version every `pollIntervalMs`. */
  start(): void;
  stop(): Promise<void>;
}

export function createCatalogCache(options: { source: CatalogSource; pollIntervalMs: number; logger: Logger }): CatalogCache {
  const { source, pollIntervalMs, logger } = options;
  let snapshot: CatalogSnapshot | undefined;
  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let stopped = false;

  const load = async (): Promise<void> => {
    const set = await source.load();
    if (snapshot?.version === set.version) return;
    const previous = snapshot?.version;
    snapshot = await buildCatalogSnapshot(set.version, set.categories);
    logger.info('category list loaded', { version: set.version, previousVersion: previous, categories: set.categories.length });
  };

  // Loads run one at a time, so a snapshot never goes back to an older read.
  const refresh = (): Promise<void> => {
    if (!inFlight) {
      inFlight = load().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    }
    queued ??= inFlight
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return refresh();
      });
    return queued;
  };

  const poll = async (): Promise<void> => {
    try {
      const version = await source.version();
      if (version !== snapshot?.version) await refresh();
    } catch (error) {
      logger.warn('category list refresh failed; serving the last list', { error });
    }
  };

  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      polling = poll().finally(schedule);
    }, pollIntervalMs);
    timer.unref();
  };

  return {
    current() {
      if (!snapshot) throw new Error('category list not loaded yet');
      return snapshot;
    },
    get loaded() {
      return snapshot !== undefined;
    },
    refresh,
    start() {
      if (timer === undefined && !stopped) schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await polling?.catch(() => undefined);
      await inFlight?.catch(() => undefined);
    },
  };
}
