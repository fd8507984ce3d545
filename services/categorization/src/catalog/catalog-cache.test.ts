import { silentLogger } from '@platform/testing';
import type { Category } from '../domain/category';
import { createCatalogCache, type CatalogSource } from './catalog-cache';

/** A source whose version and categories the test moves by hand. */
function fakeSource(): CatalogSource & {
  set(version: number, categories: Category[]): void;
  loads: number;
  versionCalls: number;
  fail: boolean;
} {
  let state = { version: 1, categories: [{ id: 'IAB-1', name: 'One', parent: null }] as Category[] };
  const source = {
    loads: 0,
    versionCalls: 0,
    fail: false,
    set(version: number, categories: Category[]) {
      state = { version, categories };
    },
    load() {
      source.loads += 1;
      return source.fail ? Promise.reject(new Error('database down')) : Promise.resolve({ ...state });
    },
    version() {
      source.versionCalls += 1;
      return source.fail ? Promise.reject(new Error('database down')) : Promise.resolve(state.version);
    },
  };
  return source;
}

const ids = (body: Buffer): string[] => (JSON.parse(body.toString()) as Category[]).map((category) => category.id);
const waitFor = async (condition: () => boolean): Promise<void> => {
  for (let tries = 0; tries < 200 && !condition(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition not met');
};

describe('createCatalogCache', () => {
  it('when not loaded yet, then current() throws and loaded is false', () => {
    const cache = createCatalogCache({ source: fakeSource(), pollIntervalMs: 1000, logger: silentLogger() });
    expect(cache.loaded).toBe(false);
    expect(() => cache.current()).toThrow('not loaded');
  });

  it('when refreshed, then the snapshot reflects the source', async () => {
    const source = fakeSource();
    const cache = createCatalogCache({ source, pollIntervalMs: 1000, logger: silentLogger() });
    await cache.refresh();
    expect(cache.current().version).toBe(1);
    source.set(2, [
      { id: 'IAB-2', name: 'Two', parent: null },
      { id: 'IAB-1', name: 'One', parent: null },
    ]);
    await cache.refresh();
    expect(ids(cache.current().representation('IAB', 'JSON').body)).toEqual(['IAB-1', 'IAB-2']);
  });

  it('when many refreshes are asked during a load, then they share one further load', async () => {
    const source = fakeSource();
    const cache = createCatalogCache({ source, pollIntervalMs: 1000, logger: silentLogger() });
    await Promise.all([cache.refresh(), cache.refresh(), cache.refresh(), cache.refresh()]);
    expect(source.loads).toBe(2);
  });

  it('when polling sees a new version, then it reloads; an unchanged version is not reloaded', async () => {
    const source = fakeSource();
    const cache = createCatalogCache({ source, pollIntervalMs: 5, logger: silentLogger() });
    await cache.refresh();
    cache.start();
    await waitFor(() => source.versionCalls >= 3);
    expect(source.loads).toBe(1);
    source.set(5, []);
    await waitFor(() => cache.current().version === 5);
    await cache.stop();
    expect(cache.current().size).toBe(0);
  });

  it('when the source fails, then the last list is kept and polling goes on', async () => {
    const source = fakeSource();
    const cache = createCatalogCache({ source, pollIntervalMs: 5, logger: silentLogger() });
    await cache.refresh();
    cache.start();
    source.fail = true;
    await expect(cache.refresh()).rejects.toThrow('database down');
    const calls = source.versionCalls;
    await waitFor(() => source.versionCalls >= calls + 2);
    expect(cache.current().version).toBe(1);
    source.fail = false;
    source.set(3, []);
    await waitFor(() => cache.current().version === 3);
    await cache.stop();
  });

  it('when stopped, then it polls no more', async () => {
    const source = fakeSource();
    const cache = createCatalogCache({ source, pollIntervalMs: 5, logger: silentLogger() });
    cache.start();
    await waitFor(() => source.versionCalls >= 1);
    await cache.stop();
    const calls = source.versionCalls;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(source.versionCalls).toBe(calls);
  });
});
