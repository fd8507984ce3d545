/**
 * Test-only faults in the product (TEST_FAULT=<fault>@<n>), so that a chaos run (scripts/chaos)
 * is shown to catch a broken product: every n-th time the named step runs, it misbehaves. The
 * configuration refuses the variable when NODE_ENV=production (config.ts).
 *
 * The faults: `usage-answer-without-commit` (a usage batch that is its own transaction is
 * answered as granted without being written: a debit answered 200 and lost).
 */
export type TestFault = (fault: string) => boolean;

export const TEST_FAULTS = /^(usage-answer-without-commit)@([1-9][0-9]*)$/;

/** Undefined when `spec` is unset: callers skip the call on their hot paths. */
export function createTestFault(spec: string | undefined): TestFault | undefined {
  if (spec === undefined) return undefined;
  const match = TEST_FAULTS.exec(spec);
  if (!match) throw new Error(`TEST_FAULT must be <fault>@<n>, not ${spec}`);
  const every = Number(match[2]);
  let hits = 0;
  return (fault) => {
    if (fault !== match[1]) return false;
    hits += 1;
    return hits % every === 0;
  };
}
