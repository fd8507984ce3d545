import type { History } from './history';

/**
 * The numbers docs/resilience.md records of a run: operations by kind and outcome (`debit
 * 200: 1499`, `issue 503: 1`, …), the longest answer, and how many debits stayed unknown.
 */
export function summarize(history: History): string {
  const counts = new Map<string, number>();
  for (const op of history.ops) counts.set(`${op.f} ${op.status}`, (counts.get(`${op.f} ${op.status}`) ?? 0) + 1);
  const longest = Math.max(0, ...history.ops.map((op) => op.end - op.start));
  const attempts = new Map<string, boolean>();
  for (const op of history.ops.filter((entry) => entry.f === 'debit' && entry.requestId !== undefined))
    attempts.set(op.requestId as string, (attempts.get(op.requestId as string) ?? false) || op.type !== 'info');
  const unknown = [...attempts.values()].filter((known) => !known).length;
  const listed = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `${key}: ${count}`);
  return `operations: ${history.ops.length} (${listed.join(', ')}); longest answer ${longest} ms; debits still unknown after settling: ${unknown}`;
}
