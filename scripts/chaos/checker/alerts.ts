import type { AccountEnd, AlertKind, FinalState } from '../history';
import type { Anomaly } from './anomaly';

/** The crossings of a pool's ledger (CONTRACT §6): low from ≥ threshold to below it (above 0), zero from above 0 to 0. */
export function crossings(end: AccountEnd): Record<AlertKind, number> {
  const counted = { low: 0, zero: 0 };
  let previous = 0;
  for (const row of end.ledger) {
    const credits = row.creditsAfter;
    if (previous >= end.threshold && credits < end.threshold && credits > 0) counted.low += 1;
    if (previous > 0 && credits === 0) counted.zero += 1;
    previous = credits;
  }
  return counted;
}

/** Exactly one alert e-mail and one webhook per crossing of the ledger (CONTRACT §6, §6.1). */
export function checkAlerts(final: FinalState): Anomaly[] {
  const anomalies: Anomaly[] = [];
  for (const end of final.accounts) {
    const owed = crossings(end);
    for (const kind of ['low', 'zero'] as const) {
      for (const [channel, sent] of [
        ['e-mail', final.mails],
        ['webhook', final.webhooks],
      ] as const) {
        const count = sent.filter((alert) => alert.account === end.account && alert.kind === kind).length;
        if (count > owed[kind])
          anomalies.push({
            rule: 'duplicate-alert',
            account: end.account,
            detail: `${count} ${kind} ${channel}s for ${owed[kind]} crossings`,
          });
        if (count < owed[kind])
          anomalies.push({
            rule: 'missing-alert',
            account: end.account,
            detail: `${count} ${kind} ${channel}s for ${owed[kind]} crossings`,
          });
      }
    }
  }
  return anomalies;
}
