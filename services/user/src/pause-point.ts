/**
 * Test-only pause points for deterministic fault tests (TEST_PAUSE_AT=<point>[@<hit>]): the
 * named step's <hit>-th run (default the first) writes `PAUSED AT <point>` to stderr and waits
 * until the process gets SIGUSR2 (then writes `RESUMED AT <point>` and goes on), so that a test
 * can kill the process, cut a connection or look at Redis exactly there. Other runs of the step,
 * and every step when the variable is unset, pass at once.
 *
 * The points: `user-before-commit` (a user-store transaction, after its SQL and its closing
 * writes, before COMMIT), `access-after-commit` (any transaction with access effects — a
 * user-store change, an operator change, a usage batch that closes or opens access — right
 * after its COMMIT, before what follows it), `grant-after-commit` (after that COMMIT, before its grants reach
 * Redis), `usage-after-commit` (a usage batch committed, its debits not answered yet).
 */
export type PausePoint = (point: string) => Promise<void>;

/** Where production code may pause for a fault test; production wires NO_PAUSES (TEST_PAUSE_AT unset). */
export interface Pauses {
  at(point: 'user-before-commit' | 'access-after-commit' | 'grant-after-commit' | 'usage-after-commit'): Promise<void>;
}

export const NO_PAUSES: Pauses = { at: () => Promise.resolve() };

/** The pause points of TEST_PAUSE_AT, or none at all when it is unset. */
export function pausesOf(spec: string | undefined): Pauses {
  const pause = createPausePoint(spec);
  return pause ? { at: pause } : NO_PAUSES;
}

const SPEC = /^([a-z-]+)(?:@([1-9][0-9]*))?$/;

/** Undefined when `spec` is unset: callers skip the call on their hot paths. */
export function createPausePoint(spec: string | undefined): PausePoint | undefined {
  if (spec === undefined) return undefined;
  const match = SPEC.exec(spec);
  if (!match) throw new Error(`TEST_PAUSE_AT must be <point>[@<hit>], not ${spec}`);
  const name = match[1] as string;
  const hit = Number(match[2] ?? 1);
  let hits = 0;
  return (point) => {
    if (point !== name) return Promise.resolve();
    hits += 1;
    if (hits !== hit) return Promise.resolve();
    process.stderr.write(`PAUSED AT ${point}\n`);
    return new Promise((resolve) => {
      process.once('SIGUSR2', () => {
        process.stderr.write(`RESUMED AT ${point}\n`);
        resolve();
      });
    });
  };
}
