/**
 * The chaos run's checker: pure, a history in (history.ts), the anomalies out. Each rule is in a
 * file of its own: answers.ts (statuses and the 5 s bound), ledger.ts (debits and pools),
 * revocation.ts (rotations, disables, empty accounts), alerts.ts (one alert per crossing).
 */
import type { History } from '../history';
import { checkAlerts } from './alerts';
import type { Anomaly } from './anomaly';
import { checkAnswers } from './answers';
import { checkAccount } from './ledger';
import { checkEmptyMint, checkRevocation } from './revocation';

export type { Anomaly } from './anomaly';

export function check(history: History): Anomaly[] {
  return [
    ...checkAnswers(history.ops),
    ...history.final.accounts.flatMap((end) => checkAccount(history.ops, end)),
    ...checkRevocation(history.ops),
    ...checkEmptyMint(history.ops),
    ...checkAlerts(history.final),
  ];
}

/** The verdict as printed: the seed, a line per anomaly, and `valid` or how many anomalies. */
export function verdict(history: History, anomalies: readonly Anomaly[]): string {
  const lines = anomalies.map((anomaly) => {
    const where = [anomaly.op === undefined ? '' : `op ${anomaly.op}`, anomaly.account === undefined ? '' : `account ${anomaly.account}`]
      .filter(Boolean)
      .join(', ');
    return `  ${anomaly.rule}${where ? ` (${where})` : ''}: ${anomaly.detail}`;
  });
  const head = anomalies.length === 0 ? 'valid' : `INVALID: ${anomalies.length} anomalies`;
  return [`chaos seed ${history.seed}: ${head} (${history.ops.length} operations)`, ...lines].join('\n');
}
