import { serialByKey } from './serial-by-key';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('serialByKey', () => {
  it('when tasks share a key, then they run one at a time in submission order, even after a failure', async () => {
    const run = serialByKey();
    const log: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async (): Promise<string> => {
        log.push(`start ${name}`);
        await sleep(ms);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([run('a', task('1', 20, true)), run('a', task('2', 1)), run('a', task('3', 5))]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('when tasks have different keys, then they run concurrently', async () => {
    const run = serialByKey();
    let running = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(10);
      running -= 1;
    };
    await Promise.all([run('a', task), run('b', task), run('c', task)]);
    expect(peak).toBe(3);
  });
});
