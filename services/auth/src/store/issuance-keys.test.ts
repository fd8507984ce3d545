import type { Pool } from 'pg';
import type { ActiveKey, KeyDirectory } from '@platform/credentials';
import { createIssuanceKeys } from './issuance-keys';

const unusedPool = {} as Pool;

function directoryOf(answers: Map<string, ActiveKey>) {
  const findActive = jest.fn((hash: string) => Promise.resolve(answers.get(hash)));
  const directory: KeyDirectory = { findActive };
  return { directory, findActive };
}

describe('issuance key reads', () => {
  let now = 1_000_000;
  const clock = () => now;

  test('when a key with credits is read twice within the cache time, then Postgres is asked once', async () => {
    const { directory, findActive } = directoryOf(new Map([['h1', { accountId: 1, generation: 0, hasCredits: true }]]));
    const keys = createIssuanceKeys(unusedPool, directory, { cacheMs: 1000, now: clock });
    await keys.find('h1');
    now += 999;
    expect(await keys.find('h1')).toEqual({ accountId: 1, generation: 0, hasCredits: true });
    expect(findActive).toHaveBeenCalledTimes(1);
    now += 2;
    await keys.find('h1');
    expect(findActive).toHaveBeenCalledTimes(2);
  });

  test('when the entry is evicted (the mint refused its generation), then the next read goes to Postgres', async () => {
    const { directory, findActive } = directoryOf(new Map([['h1', { accountId: 1, generation: 0, hasCredits: true }]]));
    const keys = createIssuanceKeys(unusedPool, directory, { cacheMs: 10_000, now: clock });
    await keys.find('h1');
    keys.evict('h1');
    await keys.find('h1');
    expect(findActive).toHaveBeenCalledTimes(2);
  });

  test('when a key has no credits or is unknown, then it is never cached (a top-up or a new key is seen at once)', async () => {
    const { directory, findActive } = directoryOf(new Map([['h0', { accountId: 2, generation: 0, hasCredits: false }]]));
    const keys = createIssuanceKeys(unusedPool, directory, { cacheMs: 10_000, now: clock });
    await keys.find('h0');
    await keys.find('h0');
    await keys.find('unknown');
    await keys.find('unknown');
    expect(findActive).toHaveBeenCalledTimes(4);
  });

  test('when the cache time is 0, then every read goes to Postgres', async () => {
    const { directory, findActive } = directoryOf(new Map([['h1', { accountId: 1, generation: 0, hasCredits: true }]]));
    const keys = createIssuanceKeys(unusedPool, directory, { cacheMs: 0, now: clock });
    await keys.find('h1');
    await keys.find('h1');
    expect(findActive).toHaveBeenCalledTimes(2);
  });

  test('when the cache is full, then the oldest entry makes room', async () => {
    const answers = new Map(['a', 'b', 'c'].map((hash, index) => [hash, { accountId: index, generation: 0, hasCredits: true }] as const));
    const { directory, findActive } = directoryOf(answers);
    const keys = createIssuanceKeys(unusedPool, directory, { cacheMs: 10_000, maxEntries: 2, now: clock });
    await keys.find('a');
    await keys.find('b');
    await keys.find('c');
    await keys.find('b');
    expect(findActive).toHaveBeenCalledTimes(3);
    await keys.find('a');
    expect(findActive).toHaveBeenCalledTimes(4);
  });
});
