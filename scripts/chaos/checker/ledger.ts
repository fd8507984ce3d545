import type { AccountEnd, Op } from '../history';
import type { Anomaly } from './anomaly';

interface DebitOutcome {
  /** Some attempt answered 200. */
  acknowledged: boolean;
  /** Every attempt answered 4xx: the debit was refused and nothing of it may stay. */
  refused: boolean;
  units: number;
}

function debitOutcomes(ops: readonly Op[]): Map<string, DebitOutcome> {
  const outcomes = new Map<string, DebitOutcome>();
  for (const op of ops) {
    if (op.f !== 'debit' || op.requestId === undefined) continue;
    const seen = outcomes.get(op.requestId) ?? { acknowledged: false, refused: true, units: op.amount ?? 1 };
    if (op.type === 'ok') seen.acknowledged = true;
    if (op.type !== 'fail') seen.refused = false;
    outcomes.set(op.requestId, seen);
  }
  return outcomes;
}

/**
 * The accounting of one pool (CONTRACT §5, §7): every debit answered 200 is in the ledger exactly
 * once, a refused one not at all, an unknown one at most once (its replay after the run settles
 * it); nothing is in the ledger that no client sent; no pool or answer goes below 0; the pool
 * equals its credits minus its acknowledged debits; top-ups are in the ledger as often as they
 * could have happened.
 */
export function checkAccount(ops: readonly Op[], end: AccountEnd): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const account = end.account;
  const mine = ops.filter((op) => op.account === account);
  const outcomes = debitOutcomes(mine);
  const rows = new Map<string, number>();
  for (const row of end.ledger.filter((entry) => entry.cause === 'usage'))
    rows.set(row.requestId ?? '', (rows.get(row.requestId ?? '') ?? 0) + 1);
  let acknowledgedUnits = 0;
  for (const [requestId, outcome] of outcomes) {
    const count = rows.get(requestId) ?? 0;
    if (count > 1) anomalies.push({ rule: 'double-debit', account, detail: `${requestId} is in the ledger ${count} times` });
    if (outcome.acknowledged && count === 0)
      anomalies.push({ rule: 'lost-debit', account, detail: `${requestId} answered 200, not in the ledger` });
    if (outcome.refused && count > 0)
      anomalies.push({ rule: 'refused-debit-applied', account, detail: `${requestId} answered 4xx, in the ledger` });
    if (outcome.acknowledged || count > 0) acknowledgedUnits += outcome.units;
  }
  for (const requestId of rows.keys())
    if (!outcomes.has(requestId)) anomalies.push({ rule: 'phantom-debit', account, detail: `${requestId} is in the ledger, never sent` });
  for (const op of mine)
    if (op.type === 'ok' && op.credits !== undefined && op.credits < 0)
      anomalies.push({ rule: 'negative-pool', op: op.id, account, detail: `${op.f} answered credits ${op.credits}` });
  if (end.credits < 0 || end.ledger.some((row) => row.creditsAfter < 0))
    anomalies.push({ rule: 'negative-pool', account, detail: `the pool ended at ${end.credits}` });
  const credited = end.ledger.filter((row) => row.cause !== 'usage').reduce((sum, row) => sum + row.delta, 0);
  if (end.credits !== credited - acknowledgedUnits)
    anomalies.push({
      rule: 'balance-mismatch',
      account,
      detail: `the pool holds ${end.credits}, its credits ${credited} minus its debits ${acknowledgedUnits} make ${credited - acknowledgedUnits}`,
    });
  const credits = mine.filter((op) => op.f === 'create' || op.f === 'top-up');
  const least = credits.filter((op) => op.type === 'ok').length;
  const most = least + credits.filter((op) => op.type === 'info').length;
  const written = end.ledger.filter((row) => row.cause === 'top-up').length;
  if (written < least || written > most)
    anomalies.push({ rule: 'top-up-count', account, detail: `${written} top-ups in the ledger, between ${least} and ${most} possible` });
  return anomalies;
}
