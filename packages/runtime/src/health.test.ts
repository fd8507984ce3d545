import { Health } from './health';

describe('Health', () => {
  it('when there are no checks, then ready', async () => {
    await expect(new Health({}).report()).resolves.toEqual({ ready: true, body: { status: 'ready' } });
  });

  it('when every check passes, then ready with just the status', async () => {
    const health = new Health({ postgres: () => Promise.resolve(), redis: () => Promise.resolve() });
    await expect(health.report()).resolves.toEqual({ ready: true, body: { status: 'ready' } });
  });

  it('when a check fails, then not ready with each check state', async () => {
    const health = new Health({ postgres: () => Promise.resolve(), redis: () => Promise.reject(new Error('connect ECONNREFUSED')) });
    await expect(health.report()).resolves.toEqual({
      ready: false,
      body: { status: 'not ready', checks: { postgres: 'ok', redis: 'failed: connect ECONNREFUSED' } },
    });
  });

  it('when a check throws instead of rejecting, then it counts as failed', async () => {
    const health = new Health({
      broken: () => {
        throw new Error('sync boom');
      },
    });
    await expect(health.report()).resolves.toEqual({
      ready: false,
      body: { status: 'not ready', checks: { broken: 'failed: sync boom' } },
    });
  });

  it('when a check rejects with a non-Error, then its text is reported', async () => {
    const health = new Health({
      odd: () => Promise.reject(new Error('x')),
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- drivers do reject with plain values
      odder: () => Promise.reject('plain'),
    });
    const report = await health.report();
    expect(report.body).toEqual({ status: 'not ready', checks: { odd: 'failed: x', odder: 'failed: plain' } });
  });

  it('when a failure message holds a connection password, then the report does not show it', async () => {
    const health = new Health({ postgres: () => Promise.reject(new Error('cannot reach postgres://app:hunter2@db/app')) });
    expect(JSON.stringify(await health.report())).not.toContain('hunter2');
  });

  it('when a check hangs, then it is reported as timeout after two seconds', async () => {
    jest.useFakeTimers();
    try {
      const health = new Health({ stuck: () => new Promise<void>(() => undefined) });
      const pending = health.report();
      await jest.advanceTimersByTimeAsync(2000);
      await expect(pending).resolves.toEqual({ ready: false, body: { status: 'not ready', checks: { stuck: 'timeout' } } });
    } finally {
      jest.useRealTimers();
    }
  });

  it('when draining, then not ready even though every check passes', async () => {
    const health = new Health({ redis: () => Promise.resolve() });
    expect(health.isDraining).toBe(false);
    health.markDraining();
    expect(health.isDraining).toBe(true);
    await expect(health.report()).resolves.toEqual({ ready: false, body: { status: 'draining', checks: { redis: 'ok' } } });
  });
});
