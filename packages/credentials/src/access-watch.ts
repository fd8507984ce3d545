import type { EventEmitter } from 'node:events';
import { errorMessage, type Logger } from '@platform/runtime';
import type { AccessStore } from './access-store';

/** Thrown by a watched store while it may not answer (CONTRACT §3: 503, revoke too much, never too little). */
export class AccessStoreNotReconciled extends Error {
  constructor() {
    super('access store not reconciled with Postgres yet');
    this.name = 'AccessStoreNotReconciled';
  }
}

export interface AccessWatchOptions {
  /** Rewrites every access record from Postgres (`reconcileAll` of @platform/accounts). */
  reconcile: () => Promise<unknown>;
  /**
   * Postgres's identity (`databaseIdentity` of @platform/db): it changes when the database is
   * restored or replaced. Absent: only the Redis server's identity counts.
   */
  sourceIdentity?: () => Promise<string>;
  /** The Redis client: `close` means its data may be gone, `ready` that it can be checked. Absent for the memory store. */
  connection?: Pick<EventEmitter, 'on' | 'off'>;
  logger: Logger;
  /** Pause before the next attempt after a failed check (Postgres or Redis down). */
  retryMs?: number;
}

/** The access store with its loss detection: see watchAccessStore. */
export interface WatchedAccessStore {
  /** The store whose calls fail with AccessStoreNotReconciled until the server in use is known reconciled. */
  store: AccessStore;
  /** Checks the server once now (reconciling when needed); resolves whether or not that succeeded. */
  start(): Promise<void>;
  readonly ready: boolean;
  /** Readiness check: rejects while the store may not answer. */
  check(): Promise<void>;
  stop(): void;
}

/** Whether the store may answer now, and how many times it has closed (a call must not span a closing). */
interface Gate {
  open(): boolean;
  closings(): number;
}

/**
 * The marker a reconciliation leaves in the store: the Redis server(s) and the Postgres database
 * it made agree. A service finds the store current only when both are the ones it sees.
 */
export function reconciledMarkerOf(serverId: string, sourceId: string): string {
  return `${serverId}|${sourceId}`;
}

function guarded(inner: AccessStore, gate: Gate): AccessStore {
  const refused = (): Promise<never> => Promise.reject(new AccessStoreNotReconciled());
  // An answer that spans a closing may come from a server that lost data (on a cluster, a command
  // retried on a promoted replica): it is refused like every call after it.
  const through = <T>(call: () => Promise<T>): Promise<T> => {
    if (!gate.open()) return refused();
    const at = gate.closings();
    return call().then((result) => (gate.closings() === at ? result : refused()));
  };
  return {
    issue: (request) => through(() => inner.issue(request)),
    findKey: (keyHash) => through(() => inner.findKey(keyHash)),
    findKeys: (keyHashes) => through(() => inner.findKeys(keyHashes)),
    lookupToken: (token, tokenHash) => through(() => inner.lookupToken(token, tokenHash)),
    revokeToken: (token) => through(() => inner.revokeToken(token)),
    putKeys: (records) => through(() => inner.putKeys(records)),
    deleteKeys: (keyHashes) => through(() => inner.deleteKeys(keyHashes)),
    carryIssuanceWindow: (from, to) => through(() => inner.carryIssuanceWindow(from, to)),
    setPoolCredit: (keyHashes, poolId, credited) => through(() => inner.setPoolCredit(keyHashes, poolId, credited)),
    // Each batch is refused once the store has closed: a listing may span a loss.
    storedKeys: (visit) => through(() => inner.storedKeys((batch) => (gate.open() ? visit(batch) : refused()))),
    forgetKeys: (keyHashes) => through(() => inner.forgetKeys(keyHashes)),
    identity: () => inner.identity(),
    markReconciled: (marker) => inner.markReconciled(marker),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

/**
 * Detects Redis data loss and reconciles before answering again (CONTRACT §3). A loss always
 * comes with a restarted or replaced server, so with a new connection: the store is closed to
 * every caller as soon as the connection drops, and on every (re)connection the server's identity
 * (Redis run_id) is compared with the one this process checked last. At start, and whenever the
 * server is another one, the marker the last reconciliation left (any service writes it) must
 * name this server and the Postgres database as it is now (`sourceIdentity`): a service starting
 * against a restored database (another database, server or timeline) reconciles fully before it
 * is ready, as one starting against a restarted Redis does. Postgres is asked only then, so a
 * reconnection to the same Redis server never waits on Postgres. A failed attempt is retried.
 */
export function watchAccessStore(inner: AccessStore, options: AccessWatchOptions): WatchedAccessStore {
  const retryMs = options.retryMs ?? 1000;
  let ready = false;
  let closings = 0;
  const close = (): void => {
    if (ready) closings += 1;
    ready = false;
  };
  let verified: string | undefined;
  // Bumped whenever the connection drops: a check that began before may not open the store.
  let epoch = 0;
  let running: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;

  const attempt = async (): Promise<void> => {
    const startedIn = epoch;
    const { serverId, reconciledFor } = await inner.identity();
    if (serverId !== verified) {
      // A server other than the one checked last (a cluster's failover, seen by a periodic check
      // before any connection event): closed until the check below has passed.
      close();
      const sourceId = (await options.sourceIdentity?.()) ?? '';
      const marker = reconciledMarkerOf(serverId, sourceId);
      if (reconciledFor !== marker) {
        if (verified === undefined)
          options.logger.info('access store not reconciled for this Redis server and Postgres database yet: reconciling from Postgres', {
            serverId,
            sourceId,
            previous: reconciledFor,
          });
        else
          options.logger.warn('Redis server changed (its data may be lost): reconciling from Postgres', { serverId, previous: verified });
        const report = await options.reconcile();
        await inner.markReconciled(marker);
        options.logger.info('access store reconciled', { serverId, sourceId, report });
      }
    }
    if (epoch !== startedIn) throw new Error('connection changed during the check');
    verified = serverId;
    ready = true;
  };

  const check = (): Promise<void> => {
    running ??= attempt()
      .catch((error: unknown) => {
        if (stopped) return;
        options.logger.warn('access store check failed; retrying', { error: errorMessage(error) });
        clearTimeout(retry);
        retry = setTimeout(() => void check(), retryMs);
        retry.unref();
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const onClose = (): void => {
    epoch += 1;
    close();
  };
  const onReady = (): void => {
    void check();
  };
  options.connection?.on('close', onClose);
  options.connection?.on('ready', onReady);

  return {
    store: guarded(inner, { open: () => ready, closings: () => closings }),
    start: check,
    get ready() {
      return ready;
    },
    async check() {
      if (!ready) throw new AccessStoreNotReconciled();
      await inner.ping();
    },
    stop() {
      stopped = true;
      clearTimeout(retry);
      options.connection?.off('close', onClose);
      options.connection?.off('ready', onReady);
    },
  };
}
