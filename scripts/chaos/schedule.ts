/**
 * The nemesis's schedule: which part is killed (SIGKILL, then started again), stopped (SIGSTOP,
 * then SIGCONT) or cut off by a partition (links.ts), or when the link from the services to
 * pgbouncer is slowed, when and for how long, as a pure function of the seed, so that a run
 * is repeated by its seed. One fault at a time: each starts no earlier than its `atMs`, and no
 * earlier than the previous one healed (the nemesis waits for that).
 */

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type FaultKind = 'kill' | 'stop' | 'partition' | 'delay';
export type Target = 'service' | 'redis-master' | 'redis-replica' | 'postgres-primary' | 'postgres-standby' | 'rabbitmq' | 'pgbouncer';

/** The service replicas the nemesis may hit (the categorization service takes no part in the workload). */
export const SERVICE_REPLICAS = ['auth-1', 'auth-2', 'user-1', 'user-2', 'notifier-1', 'notifier-2'] as const;

export interface Fault {
  /** Not before this, ms after the workload started. */
  atMs: number;
  kind: FaultKind;
  target: Target;
  /** Which of the target's candidates (taken modulo how many there are when it strikes). */
  pick: number;
  /** How long the part stays stopped, cut off or slowed, or dead before it is started again. */
  holdMs: number;
  /** A delay's added latency, each way (ms). */
  delayMs?: number;
}

/** Relative weights: the services and Redis are hit most often, Postgres and RabbitMQ (slow to heal) less. */
const TARGETS: Array<[Target, number]> = [
  ['service', 4],
  ['redis-master', 2],
  ['redis-replica', 1],
  ['postgres-primary', 2],
  ['postgres-standby', 1],
  ['rabbitmq', 1],
  ['pgbouncer', 2],
];

const WARM_UP_MS = 10_000;
/** A delay's range, each way: a request's few round trips stay within the contract's 5 s. */
export const DELAY_MS = [50, 250] as const;
/** The last fault starts this long before the end, so that the run ends on a healed cluster. */
const QUIET_END_MS = 30_000;

function pickWeighted(roll: number): Target {
  let left = roll;
  for (const [target, weight] of TARGETS) {
    left -= weight;
    if (left < 0) return target;
  }
  return 'service';
}

export function schedule(seed: number, minutes: number): Fault[] {
  const random = mulberry32(seed);
  const between = (low: number, high: number): number => Math.floor(low + random() * (high - low));
  const total = TARGETS.reduce((sum, [, weight]) => sum + weight, 0);
  const faults: Fault[] = [];
  for (let at = WARM_UP_MS + between(0, 5000); at < minutes * 60_000 - QUIET_END_MS;) {
    const roll = random();
    const kind: FaultKind = roll < 0.35 ? 'kill' : roll < 0.65 ? 'stop' : roll < 0.9 ? 'partition' : 'delay';
    // A delay is always of the link from the services to pgbouncer.
    const picked = kind === 'delay' ? 'pgbouncer' : pickWeighted(random() * total);
    // The standby's own port carries nothing the platform uses (it replicates over the primary's).
    const target = kind === 'partition' && picked === 'postgres-standby' ? 'postgres-primary' : picked;
    const holdMs = kind === 'kill' ? between(1000, 5000) : kind === 'delay' ? between(3000, 10_000) : between(1000, 6000);
    const fault: Fault = { atMs: at, kind, target, pick: between(0, 1000), holdMs };
    if (kind === 'delay') fault.delayMs = between(DELAY_MS[0], DELAY_MS[1]);
    faults.push(fault);
    at += holdMs + between(8000, 20_000);
  }
  return faults;
}

export function describeFault(fault: Fault): string {
  const what = {
    kill: `SIGKILL, restarted after ${fault.holdMs} ms`,
    stop: `SIGSTOP for ${fault.holdMs} ms`,
    partition: `cut off (iptables DROP both ways) for ${fault.holdMs} ms`,
    delay: `link from the services slowed by ${fault.delayMs ?? 0} ms each way for ${fault.holdMs} ms`,
  }[fault.kind];
  return `${(fault.atMs / 1000).toFixed(1).padStart(6)} s  ${fault.target} #${fault.pick}  ${what}`;
}
