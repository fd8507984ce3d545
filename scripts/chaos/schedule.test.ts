import { DELAY_MS, describeFault, mulberry32, schedule } from './schedule';

describe('the nemesis schedule', () => {
  test('is a pure function of the seed: the same seed gives the same faults, another seed others', () => {
    expect(schedule(42, 3)).toEqual(schedule(42, 3));
    expect(schedule(42, 3)).not.toEqual(schedule(43, 3));
  });

  test('spaces one fault at a time over the run and leaves a quiet end', () => {
    const faults = schedule(1, 30);
    expect(faults.length).toBeGreaterThan(60);
    expect(Math.max(...faults.map((fault) => fault.atMs))).toBeLessThan(30 * 60_000 - 30_000);
    const gaps = faults.slice(1).map((next, index) => next.atMs - (faults[index]?.atMs ?? 0) - (faults[index]?.holdMs ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(8000);
  });

  test('hits every kind of part with both faults over a long run', () => {
    const faults = schedule(9, 30);
    expect(new Set(faults.map((fault) => fault.target))).toEqual(
      new Set(['service', 'redis-master', 'redis-replica', 'postgres-primary', 'postgres-standby', 'rabbitmq', 'pgbouncer']),
    );
    expect(new Set(faults.map((fault) => fault.kind))).toEqual(new Set(['kill', 'stop', 'partition', 'delay']));
  });

  test('partitions cut the parts whose ports carry their links; delays slow the link to pgbouncer within their range', () => {
    const faults = schedule(41, 30);
    const partitions = faults.filter((fault) => fault.kind === 'partition');
    const delays = faults.filter((fault) => fault.kind === 'delay');
    expect(partitions.length).toBeGreaterThan(10);
    expect(partitions.map((fault) => fault.target)).not.toContain('postgres-standby');
    expect(delays.length).toBeGreaterThan(3);
    for (const delay of delays) {
      expect(delay.target).toBe('pgbouncer');
      expect(delay.delayMs).toBeGreaterThanOrEqual(DELAY_MS[0]);
      expect(delay.delayMs).toBeLessThan(DELAY_MS[1]);
    }
    expect(faults.filter((fault) => fault.kind !== 'delay').every((fault) => fault.delayMs === undefined)).toBe(true);
  });

  test('the CI seeds (.ci/run: 8 and 12, 1.5 minutes) each cut a part off at least once', () => {
    for (const seed of [8, 12]) expect(schedule(seed, 1.5).some((fault) => fault.kind === 'partition')).toBe(true);
  });

  test('prints each fault on a line', () => {
    expect(describeFault({ atMs: 12_500, kind: 'stop', target: 'pgbouncer', pick: 3, holdMs: 2000 })).toBe(
      '  12.5 s  pgbouncer #3  SIGSTOP for 2000 ms',
    );
    expect(describeFault({ atMs: 3000, kind: 'partition', target: 'redis-master', pick: 1, holdMs: 1500 })).toBe(
      '   3.0 s  redis-master #1  cut off (iptables DROP both ways) for 1500 ms',
    );
    expect(describeFault({ atMs: 3000, kind: 'delay', target: 'pgbouncer', pick: 1, holdMs: 4000, delayMs: 120 })).toBe(
      '   3.0 s  pgbouncer #1  link from the services slowed by 120 ms each way for 4000 ms',
    );
  });

  test('mulberry32 is uniform in [0, 1)', () => {
    const random = mulberry32(5);
    const draws = Array.from({ length: 10_000 }, random);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(draws.reduce((sum, draw) => sum + draw, 0) / draws.length).toBeCloseTo(0.5, 1);
  });
});
