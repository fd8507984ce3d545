import { judge, judgeLedger, type Sample } from './verdict';

const sample = (atSeconds: number, values: Partial<Sample> = {}): Sample => ({
  atSeconds,
  rssMb: 200,
  heapUsedMb: 50,
  loopDelayMs: 10,
  openHandles: 40,
  pgConnections: 12,
  ...values,
});

describe('soak verdict', () => {
  it('when every metric ends within 10 % of its first-interval value, then nothing grew', () => {
    const findings = judge([
      sample(60),
      sample(120, { rssMb: 260, heapUsedMb: 60 }),
      sample(180, { rssMb: 219, heapUsedMb: 54, loopDelayMs: 11 }),
      sample(240, { rssMb: 210, heapUsedMb: 51 }),
      sample(300),
    ]);
    expect(findings.filter((finding) => finding.grew)).toEqual([]);
  });

  it('when the live heap ends more than 10 % above the first interval, then it is reported as grown', () => {
    const findings = judge([sample(60), sample(120, { heapUsedMb: 55.1 })]);
    expect(findings.find((finding) => finding.metric === 'heapUsedMb')).toMatchObject({ baseline: 50, last: 55.1, grew: true });
  });

  it('when RSS swings as it does between readings of a steady load (about 45 MB), then it is not growth; beyond 10 % and that swing, it is', () => {
    expect(judge([sample(60, { rssMb: 152 }), sample(120, { rssMb: 176 })]).some((finding) => finding.grew)).toBe(false);
    const findings = judge([sample(60), sample(120, { rssMb: 269 })]);
    expect(findings.find((finding) => finding.metric === 'rssMb')).toMatchObject({ baseline: 200, last: 269, grew: true });
  });

  it('when one late interval is slow (the machine was busy) but the ones around it are not, then it is not growth; a steady rise is', () => {
    const spike = judge([sample(60), sample(120), sample(180, { loopDelayMs: 30 }), sample(240)]);
    expect(spike.find((finding) => finding.metric === 'loopDelayMs')?.grew).toBe(false);
    const leak = judge([sample(60), sample(120, { heapUsedMb: 56 }), sample(180, { heapUsedMb: 58 }), sample(240, { heapUsedMb: 60 })]);
    expect(leak.find((finding) => finding.metric === 'heapUsedMb')).toMatchObject({ last: 58, grew: true });
  });

  it('when a small count jitters by its slack, then it is not a leak; beyond it, it is', () => {
    expect(judge([sample(60), sample(120, { pgConnections: 15 })]).some((finding) => finding.grew)).toBe(false);
    expect(judge([sample(60), sample(120, { pgConnections: 16 })]).find((finding) => finding.metric === 'pgConnections')?.grew).toBe(true);
  });

  it('when there is only the warm-up sample, then the soak cannot judge', () => {
    expect(() => judge([sample(60)])).toThrow('at least two samples');
  });

  it('when the pools may hold more connections than the first interval saw, then connections within that capacity are not a leak; beyond it, they are', () => {
    const connections = (count: number, capacity: number): boolean | undefined =>
      judge([sample(16, { pgConnections: 5 }), sample(32, { pgConnections: count })], { pgPoolCapacity: capacity }).find(
        (finding) => finding.metric === 'pgConnections',
      )?.grew;
    expect(connections(9, 13)).toBe(false);
    expect(connections(14, 13)).toBe(true);
    expect(connections(9, 5)).toBe(true);
  });

  it('when every pool matches its ledger, then the ledger finds nothing; a pool changed behind it, or no pool checked, fails', () => {
    expect(judgeLedger({ pools: 21, differences: [] })).toEqual([]);
    expect(judgeLedger({ pools: 21, differences: [{ accountId: 7, poolId: 1, credits: 13, expected: 10 }] })).toEqual([
      'account 7 pool 1: credits 13, ledger 10',
    ]);
    expect(judgeLedger({ pools: 0, differences: [] })).toEqual(['verify-ledger checked no pool']);
  });
});
