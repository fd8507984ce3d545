import type { Op } from '../history';
import type { Anomaly } from './anomaly';

/** Operations that present a credential and were accepted (a token minted, a balance read, a debit made). */
const accepted = (op: Op): boolean => op.type === 'ok' && op.credential !== undefined && ['issue', 'balance', 'debit'].includes(op.f);

/** Could have taken effect: answered 200, or unknown (an `info` op may take effect at any time). */
const mayHaveHappened = (op: Op): boolean => op.type !== 'fail';

/** The operations of each kind per account, in one pass (a 30-minute history holds ~90,000). */
function byAccountAndKind(ops: readonly Op[]): (f: Op['f'], account: number) => Op[] {
  const index = new Map<string, Op[]>();
  for (const op of ops) {
    const key = `${op.f}:${op.account}`;
    const list = index.get(key) ?? [];
    list.push(op);
    index.set(key, list);
  }
  return (f, account) => index.get(`${f}:${account}`) ?? [];
}

/**
 * The earliest start among `undoers` that could have taken effect after `op` started: a request
 * that ends after it may have been helped by one of them (an enable after a disable, a top-up
 * after an emptying debit). Infinity when none.
 */
const earliestUndo = (op: Op, undoers: readonly Op[]): number =>
  Math.min(...undoers.filter((undo) => mayHaveHappened(undo) && undo.end > op.start).map((undo) => undo.start));

/**
 * Revocation is linearizable (CONTRACT §3, §4.4, §7): a request that starts after a rotation
 * answered 200 is refused with the replaced key or any token minted under it; a request that
 * starts after a disable answered 200 is refused with any credential until an enable could have
 * taken effect, and with a token minted before the disable for ever.
 */
export function checkRevocation(ops: readonly Op[]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const mints = new Map(ops.filter((op) => op.f === 'issue').map((op) => [op.id, op]));
  const byAccount = byAccountAndKind(ops);
  const enabledFrom = new Map(
    ops.filter((op) => op.f === 'disable').map((disable) => [disable.id, earliestUndo(disable, byAccount('enable', disable.account))]),
  );
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
      const enabled = (enabledFrom.get(disable.id) ?? Infinity) < op.end;
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
  const byAccount = byAccountAndKind(ops);
  const emptying = new Map<number, Array<{ debit: Op; refilledFrom: number }>>();
  for (const debit of firstAttempts.values()) {
    if (debit.type !== 'ok' || debit.credits !== 0 || debit.settle) continue;
    const refills = [...byAccount('top-up', debit.account), ...byAccount('create', debit.account)];
    const list = emptying.get(debit.account) ?? [];
    list.push({ debit, refilledFrom: earliestUndo(debit, refills) });
    emptying.set(debit.account, list);
  }
  for (const issue of ops.filter((op) => op.f === 'issue' && op.type === 'ok')) {
    for (const { debit, refilledFrom } of emptying.get(issue.account) ?? []) {
      if (debit.end >= issue.start) continue;
      const refilled = refilledFrom < issue.end;
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
