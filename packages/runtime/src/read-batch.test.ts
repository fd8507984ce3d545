import { readBatch } from './read-batch';

describe('readBatch', () => {
  it('when the same keys are asked many times in one turn, within maxBatchSize, then they are read once each, and every caller gets its own answer', async () => {
    const calls: string[][] = [];
    const read = readBatch(
      (asked: string[]) => {
        calls.push(asked);
        return Promise.resolve(new Map(asked.map((key) => [key, key.toUpperCase()])));
      },
      () => 'absent',
      1000,
    );
    const keys = Array.from({ length: 300 }, (_, index) => `key-${index % 7}`);

    const answers = await Promise.all(keys.map((key) => read.load(key)));

    expect(answers).toEqual(keys.map((key) => key.toUpperCase()));
    expect(calls).toEqual([['key-0', 'key-1', 'key-2', 'key-3', 'key-4', 'key-5', 'key-6']]);
  });

  it('when more reads than maxBatchSize are asked in one turn, then they are cut into reads of that many', async () => {
    const calls: number[] = [];
    const read = readBatch(
      (keys: number[]) => {
        calls.push(keys.length);
        return Promise.resolve(new Map(keys.map((key) => [key, key])));
      },
      () => -1,
      100,
    );

    await Promise.all(Array.from({ length: 250 }, (_, index) => read.load(index)));

    expect(calls).toEqual([100, 100, 50]);
  });

  it('when a key is not found, then its caller gets the absent value', async () => {
    const read = readBatch(
      () => Promise.resolve(new Map<string, string>()),
      () => 'absent',
    );
    await expect(read.load('nobody')).resolves.toBe('absent');
  });
});
