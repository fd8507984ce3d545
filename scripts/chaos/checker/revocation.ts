import type { Op } from '../history';
import type { Anomaly } from './anomaly';

/** Operations that present a credential and were accepted (a token minted, a balance read, a debit made). */
const accepted = (op: Op): boolean => op.type === 'ok' && op.credential !== undefined && ['issue', 'balance', 'debit'].includes(op.f);

/** Could have taken effect: answered 200, or unknown (an `info` op may take effect at any time). */
const mayHaveHappened = (op: Op): boolean => op.type !== 'fail';

/**
 * Revocation is linearizable (CONTRACT §3, §4.4, §7): a request that starts after a rotation
 * answered 200 is refused with the replaced key or any token minted under it; a request that
 * starts after a disable answered 200 is refused with any credential until an enable could have
 * taken effect, and with a token minted before the disable for ever.
 */
export function checkRevocation(ops: readonly Op[]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const mints = new Map(ops.filter((op) => op.f === 'issue').map((op) => [op.id, op]));
  const byAccount = (f: Op['f'], account: number): Op[] => ops.filter((op) => op.f === f && op.account === account);
  for (const op of ops.filter(accepted)) {
    const credential = op.credential as NonNullable<Op['credential']>;
    const mint = 'token' in credential ? mints.get(credential.token) : undefined;
    const key = 'key' in credential ? credential.key : (mint?.credential as { key: number } | undefined)?.key;
    const named = 'key' in credential ? `key ${credential.key}` : `token of op ${credential.token}`;
    const at = { op: op.id, account: op.account };
    for (const rotation of byAccount('rotate', op.account))
      if (rotation.type === 'ok' && key !== undefined && (rotation.from ?? -1) >= key && rotation.end < op.start)
        anomalies.push({ rule: 'revoked-credential-accepted', ...at, detail: `${op.f} with ${named}, replaced by op ${rotation.id}` });
    for (const disable of byAccount('disable', op.account)) {
      if (disable.type !== 'ok' || disable.end >= op.start) continue;
      const enabled = byAccount('enable', op.account).some(
        (enable) => mayHaveHappened(enable) && enable.start < op.end && enable.end > disable.start,
      );
      const mintedBefore = mint !== undefined && mint.end < disable.start;
      if (!enabled || mintedBefore)
        anomalies.push({ rule: 'disable-not-honoured', ...at, detail: `${op.f} with ${named} after disable op ${disable.id}` });
    }
  }
  return anomalies;
}

/**
 * An account whose pool is at 0 mints nothing (CONTRACT §3) from the moment the emptying debit
 * answered until a top-up could have taken effect. Only a debit's first attempt counts: a replay
 * answers the first answer, which may be older than a top-up.
 */
export function checkEmptyMint(ops: readonly Op[]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const firstAttempts = new Map<string, Op>();
  for (const op of ops)
    if (op.f === 'debit' && op.requestId !== undefined && !firstAttempts.has(op.requestId)) firstAttempts.set(op.requestId, op);
  const emptying = [...firstAttempts.values()].filter((op) => op.type === 'ok' && op.credits === 0 && !op.settle);
  for (const issue of ops.filter((op) => op.f === 'issue' && op.type === 'ok')) {
    for (const debit of emptying) {
      if (debit.account !== issue.account || debit.end >= issue.start) continue;
      const refilled = ops.some(
        (op) =>
          (op.f === 'top-up' || op.f === 'create') &&
          op.account === issue.account &&
          mayHaveHappened(op) &&
          op.start < issue.end &&
          op.end > debit.start,
      );
      if (!refilled)
        anomalies.push({
          rule: 'empty-account-minted',
          op: issue.id,
          account: issue.account,
          detail: `a token minted after debit op ${debit.id} emptied the pool`,
        });
    }
  }
  return anomalies;
}
