import { EventEmitter } from 'node:events';
import { silentLogger } from '@platform/testing';
import type { AccessStore } from './access-store';
import { AccessStoreNotReconciled, watchAccessStore } from './access-watch';
import { createMemoryAccessStore } from './memory-access-store';

/** A memory store whose server identity the test changes, as a Redis restart would. */
function restartableStore(): { store: AccessStore; restart(): void } {
  const inner = createMemoryAccessStore();
  let server = 'run-1';
  let reconciledFor: string | undefined;
  const store: AccessStore = {
    ...inner,
    identity: () => Promise.resolve({ serverId: server, reconciledFor }),
    markReconciled(id) {
      reconciledFor = id;
      return Promise.resolve();
    },
  };
  return {
    store,
    restart() {
      server = `run-${Number(server.slice(4)) + 1}`;
      reconciledFor = undefined;
    },
  };
}

const waitFor = async (condition: () => boolean): Promise<void> => {
  for (let tries = 0; tries < 200 && !condition(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition not met');
};

describe('watchAccessStore', () => {
  test('when a service starts on a store nobody reconciled for this server, then it reconciles once before it answers', async () => {
    const { store } = restartableStore();
    const reconcile = jest.fn(() => Promise.resolve());
    const watch = watchAccessStore(store, { reconcile, logger: silentLogger() });
    await expect(watch.store.findKey('x')).rejects.toBeInstanceOf(AccessStoreNotReconciled);
    await expect(watch.check()).rejects.toBeInstanceOf(AccessStoreNotReconciled);
    await watch.start();
    expect(reconcile).toHaveBeenCalledTimes(1);
    expect(watch.ready).toBe(true);
    await expect(watch.store.findKey('x')).resolves.toBeUndefined();
    await expect(watch.check()).resolves.toBeUndefined();

    // A second service on the same server sees the marker and does not reconcile again.
    const second = jest.fn(() => Promise.resolve());
    const other = watchAccessStore(store, { reconcile: second, logger: silentLogger() });
    await other.start();
    expect(second).not.toHaveBeenCalled();
    expect(other.ready).toBe(true);
  });

  test('when a service starts against another Postgres database (a restore) on the same Redis server, then it reconciles before it answers; a reconnection does not ask Postgres', async () => {
    const { store } = restartableStore();
    let database = 'system:1:16384';
    const sourceIdentity = jest.fn(() => Promise.resolve(database));
    const first = jest.fn(() => Promise.resolve());
    const before = watchAccessStore(store, { reconcile: first, sourceIdentity, logger: silentLogger() });
    await before.start();
    expect(first).toHaveBeenCalledTimes(1);
    before.stop();

    // The services are stopped, the database restored (another oid), a service started.
    database = 'system:1:16999';
    const connection = new EventEmitter();
    const second = jest.fn(() => Promise.resolve());
    const after = watchAccessStore(store, { reconcile: second, sourceIdentity, connection, logger: silentLogger() });
    await after.start();
    expect(second).toHaveBeenCalledTimes(1);
    expect(after.ready).toBe(true);

    const asked = sourceIdentity.mock.calls.length;
    connection.emit('close');
    connection.emit('ready');
    await waitFor(() => after.ready);
    expect(sourceIdentity).toHaveBeenCalledTimes(asked);
    expect(second).toHaveBeenCalledTimes(1);
    after.stop();
  });

  test('when the connection drops, then the store refuses at once; on reconnection to a restarted server it reconciles before answering again', async () => {
    const { store, restart } = restartableStore();
    const connection = new EventEmitter();
    const reconcile = jest.fn(() => Promise.resolve());
    const watch = watchAccessStore(store, { reconcile, connection, logger: silentLogger() });
    await watch.start();

    connection.emit('close');
    expect(watch.ready).toBe(false);
    await expect(watch.store.lookupToken('tk_x')).rejects.toBeInstanceOf(AccessStoreNotReconciled);
    connection.emit('ready');
    await waitFor(() => watch.ready);
    expect(reconcile).toHaveBeenCalledTimes(1); // the same server came back: nothing was lost

    connection.emit('close');
    restart();
    connection.emit('ready');
    await waitFor(() => watch.ready);
    expect(reconcile).toHaveBeenCalledTimes(2);
    watch.stop();
  });

  test('when reconciling fails (Postgres away), then the store stays closed and the watch retries until it succeeds', async () => {
    const { store } = restartableStore();
    let failures = 2;
    const reconcile = jest.fn(() => (failures-- > 0 ? Promise.reject(new Error('postgres down')) : Promise.resolve()));
    const watch = watchAccessStore(store, { reconcile, logger: silentLogger(), retryMs: 5 });
    await watch.start();
    expect(watch.ready).toBe(false);
    await waitFor(() => watch.ready);
    expect(reconcile).toHaveBeenCalledTimes(3);
    watch.stop();
  });

  test('when the connection drops while reconciling, then that reconciliation does not open the store', async () => {
    const { store } = restartableStore();
    const connection = new EventEmitter();
    let finish: () => void = () => undefined;
    const reconcile = jest.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const watch = watchAccessStore(store, { reconcile, connection, logger: silentLogger(), retryMs: 5 });
    const started = watch.start();
    await waitFor(() => reconcile.mock.calls.length === 1);
    connection.emit('close');
    finish();
    await started;
    expect(watch.ready).toBe(false);
    watch.stop();
  });

  test('when a check finds another server while the store is open (a cluster failover seen by a periodic check), then the store closes until it has reconciled', async () => {
    const { store, restart } = restartableStore();
    const connection = new EventEmitter();
    let finish: () => void = () => undefined;
    const reconcile: jest.Mock<Promise<void>, []> = jest.fn(() =>
      reconcile.mock.calls.length === 1 ? Promise.resolve() : new Promise<void>((resolve) => (finish = resolve)),
    );
    const watch = watchAccessStore(store, { reconcile, connection, logger: silentLogger() });
    await watch.start();
    expect(watch.ready).toBe(true);

    restart();
    connection.emit('ready'); // no 'close' came first
    await waitFor(() => reconcile.mock.calls.length === 2);
    expect(watch.ready).toBe(false);
    await expect(watch.store.lookupToken('tk_x')).rejects.toBeInstanceOf(AccessStoreNotReconciled);
    finish();
    await waitFor(() => watch.ready);
    watch.stop();
  });

  test('when the connection drops while a call is in flight, then its answer is refused too (it may come from a server that lost data)', async () => {
    const { store } = restartableStore();
    let answer: () => void = () => undefined;
    const slow: AccessStore = { ...store, findKey: () => new Promise((resolve) => (answer = () => resolve(undefined))) };
    const connection = new EventEmitter();
    const watch = watchAccessStore(slow, { reconcile: () => Promise.resolve(), connection, logger: silentLogger() });
    await watch.start();
    const inFlight = watch.store.findKey('x');
    connection.emit('close');
    connection.emit('ready');
    await waitFor(() => watch.ready);
    answer();
    await expect(inFlight).rejects.toBeInstanceOf(AccessStoreNotReconciled);
    watch.stop();
  });
});
