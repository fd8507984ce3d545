/**
 * The nemesis: strikes the cluster's parts as the schedule says (schedule.ts), one fault at a
 * time, and always heals: a stopped part gets SIGCONT after its hold, a killed one is started
 * again, a partition's rules are removed, a delay is set back to 0 (links.ts), and the next
 * fault waits until the part is healthy. A part that does not heal is a
 * failure of the run (the cluster must end whole).
 */
import { alive, type ClusterState, HTTP_SERVICES, httpStatus, signalGroup, waitFor } from '@platform/testing/cluster';
import { cut, healLinks, rules, type DelayProxy } from './links';
import { partOf, postgresWhole, rabbitWhole, redisWhole, type Part } from './parts';
import { describeFault, type Fault } from './schedule';

const HEAL_MS = 180_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export interface NemesisReport {
  /** One line per fault struck: when, what, on which process, how long it took to heal. */
  log: string[];
  failures: string[];
}

/** Runs the faults due before `until` (epoch ms), their times counted from `startedAt`. */
export async function runNemesis(
  state: ClusterState,
  faults: readonly Fault[],
  startedAt: number,
  until: number,
  delayProxy: DelayProxy,
): Promise<NemesisReport> {
  const report: NemesisReport = { log: [], failures: [] };
  const note = (line: string): void => {
    const stamped = `${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s  ${line}`;
    report.log.push(stamped);
    console.log(`nemesis ${stamped}`);
  };
  for (const fault of faults) {
    await pause(startedAt + fault.atMs - Date.now());
    if (Date.now() + fault.holdMs > until) break;
    let part: Part;
    try {
      part = await partOf(state, fault);
    } catch (error) {
      report.failures.push(`could not find the ${fault.target} to strike: ${(error as Error).message}`);
      break;
    }
    const pids = part.pids();
    const struck = await strike(fault, part, pids, delayProxy);
    note(`${struck}: ${describeFault(fault).trim()}`);
    await pause(fault.holdMs);
    const healing = Date.now();
    try {
      await heal(fault, part, pids, delayProxy);
      await waitFor(() => part.healthy(), HEAL_MS, `${part.label} to be healthy`);
      note(`healed ${part.label} in ${((Date.now() - healing) / 1000).toFixed(1)} s`);
    } catch (error) {
      report.failures.push(`${part.label} did not heal: ${(error as Error).message}`);
      note(`NOT HEALED ${part.label}`);
      break;
    }
  }
  return report;
}

async function strike(fault: Fault, part: Part, pids: number[], delayProxy: DelayProxy): Promise<string> {
  switch (fault.kind) {
    case 'kill':
    case 'stop':
      for (const pid of pids) signalGroup(pid, fault.kind === 'kill' ? 'SIGKILL' : 'SIGSTOP');
      return `${fault.kind === 'kill' ? 'SIGKILL' : 'SIGSTOP'} ${part.label} (pids ${pids.join(', ')})`;
    case 'partition':
      await cut(part.ports);
      return `PARTITION ${part.label} (ports ${part.ports.join(', ')}; ${(await rules()).length} DROP rules)`;
    case 'delay':
      delayProxy.setDelay(fault.delayMs ?? 0);
      return `DELAY services → pgbouncer by ${fault.delayMs ?? 0} ms each way`;
  }
}

async function heal(fault: Fault, part: Part, pids: number[], delayProxy: DelayProxy): Promise<void> {
  switch (fault.kind) {
    case 'stop':
      for (const pid of pids) signalGroup(pid, 'SIGCONT');
      return;
    case 'kill':
      await waitFor(() => pids.every((pid) => !alive(pid)), 10_000, `${part.label} to die`);
      await part.restart();
      return;
    case 'partition':
      await healLinks();
      return;
    case 'delay':
      delayProxy.setDelay(0);
  }
}

/** What is wrong with the cluster, if anything: a dead process, no Postgres primary or standby, Redis or RabbitMQ not whole, a front not ready. */
export async function wholeness(state: ClusterState): Promise<string[]> {
  const problems = state.processes.filter((entry) => !alive(entry.pid)).map((entry) => `${entry.name} is dead`);
  if (!(await postgresWhole(state).catch(() => false))) problems.push('no Patroni primary with a synchronous standby');
  if (!(await redisWhole(state).catch(() => false))) problems.push('the Redis Cluster is not ok with a replica per master');
  if (!(await rabbitWhole(state).catch(() => false))) problems.push('not every RabbitMQ node runs in the cluster');
  for (const service of HTTP_SERVICES)
    if ((await httpStatus(`http://127.0.0.1:${state.ports.front[service]}/health/ready`)) !== 200)
      problems.push(`HAProxy's ${service} front is not ready`);
  return problems;
}
