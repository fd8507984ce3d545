/**
 * Where a load's CPU went, from Linux's /proc: the serving process, the Postgres and RabbitMQ
 * servers on the machine, the bench process itself (autocannon runs in it), and the machine as
 * a whole. The usage API shares two cores with all of them; a ratio to bare express means little
 * without knowing whether the machine had any CPU left.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Linux clock ticks per second (CLK_TCK) of /proc's CPU times.
const TICKS_PER_SECOND = 100;
const MICROS_PER_TICK = 1_000_000 / TICKS_PER_SECOND;

/** Process names (/proc/<pid>/stat's comm) of the servers counted, by group. */
const SERVERS = { postgres: 'postgres', rabbitmq: 'beam.smp' } as const;

/** CPU time used so far, in microseconds; a group is undefined where /proc cannot be read. */
export interface CpuReading {
  service: number | undefined;
  postgres: number | undefined;
  rabbitmq: number | undefined;
  /** This process (the load generator). */
  bench: number;
  /** Every CPU of the machine, busy time only (not idle, not waiting for I/O). */
  machine: number | undefined;
  /** When the reading was taken (performance.now(), ms). */
  at: number;
}

/** A load's CPU per request (µs) by group, and how many cores the machine kept busy. */
export interface CpuUse {
  service: number | undefined;
  postgres: number | undefined;
  rabbitmq: number | undefined;
  bench: number;
  machineCores: number | undefined;
}

interface ProcessTimes {
  name: string;
  /** The parent's pid. */
  ppid: number;
  /** utime + stime, and the reaped children's cutime + cstime (a backend that exits stays counted). */
  ticks: number;
}

function processTimes(proc: string, pid: string): ProcessTimes | undefined {
  try {
    const stat = readFileSync(path.join(proc, pid, 'stat'), 'utf8');
    // comm is in parentheses and may hold spaces; the fields after it start with the state.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    return { name, ppid: Number(fields[1]), ticks };
  } catch {
    return undefined; // gone meanwhile, or no /proc
  }
}

/** CPU time (µs) one process has used so far, with its reaped children's; undefined when it is gone. */
export function processCpuMicros(pid: number, proc = '/proc'): number | undefined {
  const times = processTimes(proc, String(pid));
  return times === undefined ? undefined : times.ticks * MICROS_PER_TICK;
}

/**
 * The servers' own processes when BENCH_SERVER_PIDS names them (`postgres=<postmaster pid>,
 * rabbitmq=<beam.smp pid>`): a group then counts that process and its children of the same name
 * (Postgres's backends) only, not every server of that name on the machine (other people's
 * servers and nodes on a shared machine). Unset: every process of the name.
 */
function serverRoots(): Partial<Record<keyof typeof SERVERS, number>> {
  const roots: Partial<Record<keyof typeof SERVERS, number>> = {};
  for (const pair of (process.env.BENCH_SERVER_PIDS ?? '').split(',')) {
    const [group, pid] = pair.split('=');
    if ((group === 'postgres' || group === 'rabbitmq') && Number.isInteger(Number(pid))) roots[group] = Number(pid);
  }
  return roots;
}

function counted(group: keyof typeof SERVERS, pid: string, times: ProcessTimes, roots: ReturnType<typeof serverRoots>): boolean {
  if (times.name !== SERVERS[group]) return false;
  const root = roots[group];
  return root === undefined || Number(pid) === root || times.ppid === root;
}

function groupTicks(proc: string): Record<keyof typeof SERVERS, number> | undefined {
  let pids: string[];
  try {
    pids = readdirSync(proc).filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const totals = { postgres: 0, rabbitmq: 0 };
  const roots = serverRoots();
  for (const pid of pids) {
    const times = processTimes(proc, pid);
    if (times && counted('postgres', pid, times, roots)) totals.postgres += times.ticks;
    if (times && counted('rabbitmq', pid, times, roots)) totals.rabbitmq += times.ticks;
  }
  return totals;
}

/** Busy ticks of all CPUs: user, nice, system, irq, softirq, steal (the first line of /proc/stat). */
function machineTicks(proc: string): number | undefined {
  try {
    const cpu = readFileSync(path.join(proc, 'stat'), 'utf8').split('\n', 1)[0] ?? '';
    if (!cpu.startsWith('cpu ')) return undefined;
    const [user, nice, system, , , irq, softirq, steal] = cpu.trim().split(/\s+/).slice(1).map(Number);
    return [user, nice, system, irq, softirq, steal].reduce<number>((sum, value) => sum + (value ?? 0), 0);
  } catch {
    return undefined;
  }
}

const micros = (ticks: number | undefined): number | undefined => (ticks === undefined ? undefined : ticks * MICROS_PER_TICK);

/** The CPU time used so far by each group; `servicePid` is the serving process. */
export function readCpu(servicePid: number | undefined, proc = '/proc'): CpuReading {
  const service = servicePid === undefined ? undefined : processTimes(proc, String(servicePid));
  const groups = groupTicks(proc);
  const own = process.cpuUsage();
  return {
    service: service === undefined ? undefined : micros(service.ticks),
    postgres: micros(groups?.postgres),
    rabbitmq: micros(groups?.rabbitmq),
    bench: own.user + own.system,
    machine: micros(machineTicks(proc)),
    at: performance.now(),
  };
}

/** Two readings around one stretch of load. */
export interface CpuSpan {
  before: CpuReading;
  after: CpuReading;
}

/**
 * What each group spent over the spans (one load, or the turns of one load taken apart), per
 * request (µs), and how many cores the machine kept busy during them.
 */
export function cpuUse(spans: readonly CpuSpan[], requests: number): CpuUse {
  const perRequest = (spent: number): number => Math.round(spent / Math.max(requests, 1));
  const spent = (group: (reading: CpuReading) => number | undefined): number | undefined => {
    let total = 0;
    for (const { before, after } of spans) {
      const from = group(before);
      const to = group(after);
      if (from === undefined || to === undefined) return undefined;
      total += to - from;
    }
    return total;
  };
  const known = (group: (reading: CpuReading) => number | undefined): number | undefined => {
    const total = spent(group);
    return total === undefined ? undefined : perRequest(total);
  };
  const elapsedMicros = spans.reduce((sum, { before, after }) => sum + (after.at - before.at) * 1000, 0);
  const machine = spent((reading) => reading.machine);
  return {
    service: known((reading) => reading.service),
    postgres: known((reading) => reading.postgres),
    rabbitmq: known((reading) => reading.rabbitmq),
    bench: perRequest(spent((reading) => reading.bench) ?? 0),
    machineCores: machine === undefined || elapsedMicros <= 0 ? undefined : Math.round((machine / elapsedMicros) * 100) / 100,
  };
}
