import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cpuUse, readCpu } from './process-cpu';

/** A /proc/<pid>/stat line: utime, stime, cutime, cstime are fields 14–17 (in ticks of 10 ms). */
const stat = (pid: number, comm: string, [utime, stime, cutime, cstime]: number[], ppid = 1): string =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 100 1000 10\n`;

describe('CPU by process group, from /proc', () => {
  let proc: string;
  const addProcess = (pid: number, comm: string, times: number[], ppid = 1): void => {
    mkdirSync(path.join(proc, String(pid)));
    writeFileSync(path.join(proc, String(pid), 'stat'), stat(pid, comm, times, ppid));
  };

  beforeEach(() => {
    proc = mkdtempSync(path.join(tmpdir(), 'proc-'));
    // user nice system idle iowait irq softirq steal: busy = 100 + 0 + 50 + 5 + 20 + 25 ticks.
    writeFileSync(path.join(proc, 'stat'), 'cpu  100 0 50 900 30 5 20 25 0 0\ncpu0 50 0 25 450 15 2 10 12 0 0\n');
    addProcess(10, 'postgres', [3, 1, 2, 0]);
    addProcess(11, 'postgres', [4, 2, 0, 0]);
    addProcess(20, 'beam.smp', [7, 3, 0, 0]);
    addProcess(30, 'node (a) b', [40, 10, 0, 0]);
    addProcess(40, 'redis-server', [9, 9, 0, 0]);
  });
  afterEach(() => rmSync(proc, { recursive: true, force: true }));

  it('when read, then each group sums its processes and their reaped children, in µs, and the machine its busy time', () => {
    const reading = readCpu(30, proc);
    expect(reading).toMatchObject({
      service: 500_000,
      postgres: 120_000,
      rabbitmq: 100_000,
      machine: 2_000_000,
    });
    expect(reading.bench).toBeGreaterThan(0);
  });

  it('when BENCH_SERVER_PIDS names the servers, then only those processes and their children of the same name count', () => {
    addProcess(12, 'postgres', [10, 0, 0, 0], 10);
    addProcess(21, 'beam.smp', [50, 0, 0, 0]);
    process.env.BENCH_SERVER_PIDS = 'postgres=10,rabbitmq=20';
    try {
      // postgres: 10 (6 ticks) and its backend 12 (10), not 11; rabbitmq: 20 (10), not 21.
      expect(readCpu(30, proc)).toMatchObject({ postgres: 160_000, rabbitmq: 100_000 });
    } finally {
      delete process.env.BENCH_SERVER_PIDS;
    }
  });

  it('when two readings are compared, then the use is per request and the machine in cores', () => {
    const before = { service: 1_000_000, postgres: 500_000, rabbitmq: 100_000, bench: 2_000_000, machine: 10_000_000, at: 1000 };
    const after = { service: 2_000_000, postgres: 700_000, rabbitmq: 150_000, bench: 2_300_000, machine: 13_000_000, at: 3000 };
    expect(cpuUse([{ before, after }], 5000)).toEqual({ service: 200, postgres: 40, rabbitmq: 10, bench: 60, machineCores: 1.5 });
  });

  it('when a load was taken in turns, then the use sums the turns and leaves out the time between them', () => {
    const at = (ms: number, service: number, machine: number) => ({ service, postgres: 0, rabbitmq: 0, bench: 0, machine, at: ms });
    const turns = [
      { before: at(0, 0, 0), after: at(1000, 300_000, 1_000_000) },
      // Between the turns (another server's load): 9 s and 5 busy CPU-seconds, not counted.
      { before: at(10_000, 900_000, 6_000_000), after: at(12_000, 1_600_000, 10_000_000) },
    ];
    expect(cpuUse(turns, 1000)).toEqual({ service: 1000, postgres: 0, rabbitmq: 0, bench: 0, machineCores: 1.67 });
  });

  it('when /proc cannot be read, then every group but the bench itself is unknown', () => {
    const reading = readCpu(30, path.join(proc, 'missing'));
    expect(reading).toMatchObject({ service: undefined, postgres: undefined, rabbitmq: undefined, machine: undefined });
    const use = cpuUse([{ before: reading, after: readCpu(30, path.join(proc, 'missing')) }], 10);
    expect(use).toMatchObject({ service: undefined, postgres: undefined, rabbitmq: undefined, machineCores: undefined });
  });
});
