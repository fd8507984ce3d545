import { judge, type Sample } from './verdict';

const sample = (atSeconds: number, values: Partial<Sample> = {}): Sample => ({
  atSeconds,
  rssMb: 200,
  loopDelayMs: 10,
  openHandles: 40,
  pgConnections: 12,
  ...values,
});

describe('soak verdict', () => {
  it('when every metric ends within 10 % of its first-interval value, then nothing grew', () => {
    const findings = judge([
      sample(60),
      sample(120, { rssMb: 260 }),
      sample(180, { rssMb: 219, loopDelayMs: 11 }),
      sample(240, { rssMb: 210 }),
      sample(300),
    ]);
    expect(findings.filter((finding) => finding.grew)).toEqual([]);
  });

  it('when memory ends more than 10 % above the first interval, then RSS is reported as grown', () => {
    const findings = judge([sample(60), sample(120, { rssMb: 221 })]);
    expect(findings.find((finding) => finding.metric === 'rssMb')).toMatchObject({ baseline: 200, last: 221, grew: true });
  });

  it('when one late interval is slow (the machine was busy) but the ones around it are not, then it is not growth; a steady rise is', () => {
    const spike = judge([sample(60), sample(120), sample(180, { loopDelayMs: 30 }), sample(240)]);
    expect(spike.find((finding) => finding.metric === 'loopDelayMs')?.grew).toBe(false);
    const leak = judge([sample(60), sample(120, { rssMb: 230 }), sample(180, { rssMb: 240 }), sample(240, { rssMb: 250 })]);
    expect(leak.find((finding) => finding.metric === 'rssMb')).toMatchObject({ last: 240, grew: true });
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
});
