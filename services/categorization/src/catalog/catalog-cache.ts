import { startWorkerLoop, type Logger, type WorkerLoop } from '@platform/runtime';
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
  let poller: WorkerLoop | undefined;
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

  const poll = async (): Promise<boolean> => {
    const version = await source.version();
    if (version !== snapshot?.version) await refresh();
    return false;
  };
  const startPolling = (): WorkerLoop =>
    startWorkerLoop({
      name: 'category list poller',
      pollMs: pollIntervalMs,
      // A failed look is tried again within one interval, so that a replica is never staler than that.
      backoff: { initialMs: pollIntervalMs, maxMs: pollIntervalMs },
      delayFirst: true,
      logger,
      work: poll,
      failure: (error) => ({ message: 'category list refresh failed; serving the last list', fields: { error } }),
    });

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
      if (poller === undefined && !stopped) poller = startPolling();
    },
    async stop() {
      stopped = true;
      await poller?.stop();
      await inFlight?.catch(() => undefined);
    },
  };
}
