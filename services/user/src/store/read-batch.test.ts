import { readSingleFlight } from './read-batch';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function manualReads() {
  const reads: Array<{ keys: string[]; answer(): void; fail(error: Error): void }> = [];
  const readMany = (keys: string[]): Promise<Map<string, string>> =>
    new Promise((resolve, reject) => {
      reads.push({ keys, answer: () => resolve(new Map(keys.map((key) => [key, key.toUpperCase()]))), fail: reject });
    });
  return { reads, readMany };
}

describe('readSingleFlight', () => {
  it('when keys are asked in one turn, then one read carries them (each once) and each caller gets its own answer', async () => {
    const { reads, readMany } = manualReads();
    const loader = readSingleFlight(readMany, () => 'absent');
    const answers = Promise.all(['a', 'b', 'a'].map((key) => loader.load(key)));
    await turn();
    expect(reads.map((read) => read.keys)).toEqual([['a', 'b']]);
    reads[0]?.answer();
    expect(await answers).toEqual(['A', 'B', 'A']);
  });

  it('when keys are asked while a read is in flight, then they wait and go together in the next read, started when the first answers', async () => {
    const { reads, readMany } = manualReads();
    const loader = readSingleFlight(readMany, () => 'absent');
    const first = loader.load('a');
    await turn();
    const later = Promise.all([loader.load('b'), loader.load('c')]);
    await turn();
    expect(reads).toHaveLength(1);
    reads[0]?.answer();
    expect(await first).toBe('A');
    await turn();
    expect(reads.map((read) => read.keys)).toEqual([['a'], ['b', 'c']]);
    reads[1]?.answer();
    expect(await later).toEqual(['B', 'C']);
  });

  it('when a read fails, then each of its callers fails and the next read still runs', async () => {
    const { reads, readMany } = manualReads();
    const loader = readSingleFlight(readMany, () => 'absent');
    const failing = loader.load('a');
    await turn();
    const after = loader.load('b');
    reads[0]?.fail(new Error('connection lost'));
    await expect(failing).rejects.toThrow('connection lost');
    await turn();
    reads[1]?.answer();
    expect(await after).toBe('B');
  });

  it('when a key is not found, then its caller gets the absent value', async () => {
    const loader = readSingleFlight<string, string | undefined>(
      () => Promise.resolve(new Map<string, string>()),
      () => undefined,
    );
    expect(await loader.load('x')).toBeUndefined();
  });
});
