/** The ledger (product names, signed changes) and the audit log (readable details). */
import { byId, element } from '@platform/page-dom';
import type { AuditRow, LedgerRow } from './api';
import { poolNameOf } from './catalogue';
import { ACTION_NAMES, describeAudit } from './describe';
import { table, utc } from './dom';

const number = new Intl.NumberFormat('en-US');
const CAUSES: Record<string, string> = { usage: 'Usage', 'top-up': 'Top-up', adjustment: 'Adjustment', hold: 'Hold', release: 'Release' };

function signed(delta: number): string {
  return delta > 0 ? `+${number.format(delta)}` : number.format(delta);
}

/** Replaces the holder's table, or appends rows to it (`append`, the next page). */
function fill(holderId: string, append: boolean, build: () => HTMLTableElement, empty: string, count: number): void {
  const holder = byId(holderId);
  const body = holder.querySelector('tbody');
  const built = build();
  if (append && body) {
    body.append(...built.querySelectorAll('tbody tr'));
    return;
  }
  holder.replaceChildren(count === 0 ? element('p', { text: empty, className: 'help' }) : built);
}

export function renderLedger(rows: LedgerRow[], append: boolean): void {
  const cells = rows.map((row) => [
    utc(row.at),
    CAUSES[row.cause] ?? row.cause,
    poolNameOf(row.productId),
    signed(row.delta),
    number.format(row.credits),
    row.actor,
  ]);
  fill(
    'ledger',
    append,
    () => table('Every balance change, newest first', ['When', 'Cause', 'Pool', 'Change', 'Credits after', 'By'], cells, [0, 1, 2, 5]),
    'No balance change yet.',
    cells.length,
  );
}

export function renderAudit(rows: AuditRow[], append: boolean): void {
  const cells = rows.map((row) => [
    utc(row.at),
    row.actor,
    ACTION_NAMES[row.action] ?? row.action,
    row.accountId === null ? '' : String(row.accountId),
    describeAudit(row.action, row.details),
  ]);
  fill(
    'audit-log',
    append,
    () => table('Who did what, newest first', ['When', 'Who', 'What', 'Account', 'Details'], cells, [0, 1, 2, 4]),
    'Nothing recorded with these filters.',
    cells.length,
  );
}
