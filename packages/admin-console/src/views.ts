import { byId, element } from '@platform/page-dom';
import type { Account, AccountDetails, AuditRow, DailyUsage, LedgerRow } from './api';
import { table, utc } from './dom';

const number = new Intl.NumberFormat('en-US');

export function statusBadge(disabled: boolean): HTMLElement {
  return element('span', { text: disabled ? 'Disabled' : 'Active', className: disabled ? 'badge disabled' : 'badge' });
}

/** The accounts found, each with a button that opens it. */
export function renderResults(accounts: Account[], append: boolean, open: (id: number) => void): void {
  const rows = accounts.map((account) => {
    const button = element('button', { text: account.email, className: 'link-button', attributes: { type: 'button' } });
    button.addEventListener('click', () => open(account.id));
    return [String(account.id), button, statusBadge(account.disabled), utc(account.createdAt)];
  });
  const holder = byId('search-results');
  const body = holder.querySelector('tbody');
  if (append && body) {
    for (const row of table('', [], rows).querySelectorAll('tbody tr')) body.append(row);
    return;
  }
  holder.replaceChildren(table('Accounts, newest first', ['Id', 'E-mail', 'Status', 'Created'], rows, [0, 1, 2]));
}

export function renderAccount(account: AccountDetails): void {
  byId('account-title').replaceChildren(`${account.email} `, statusBadge(account.disabled));
  byId('account-facts').textContent = `Account ${account.id} · created ${utc(account.createdAt)}`;
  const rows = account.balances.map((item) => [String(item.product_id), item.product.name, number.format(item.credits)]);
  byId('balances').replaceChildren(
    rows.length === 0
      ? element('p', { text: 'This account holds no product yet.', className: 'help' })
      : table('Products that share a pool show the same credits.', ['Product', 'Name', 'Credits'], rows, [0, 1]),
  );
  const toggle = byId<HTMLButtonElement>('toggle-disabled');
  toggle.textContent = account.disabled ? 'Enable account…' : 'Disable account…';
  toggle.className = account.disabled ? 'button primary' : 'button danger';
  const product = byId<HTMLInputElement>('credits-product');
  if (product.value === '' && account.balances[0]) product.value = String(account.balances[0].product_id);
}

/** Credits used per UTC day over the last 30 days, as bars (an SVG drawn here: no inline script or style). */
export function renderUsage(items: DailyUsage[], today = new Date()): void {
  const days: Array<{ date: string; used: number }> = [];
  for (let back = 29; back >= 0; back -= 1) {
    const date = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - back)).toISOString().slice(0, 10);
    days.push({ date, used: items.filter((item) => item.date === date).reduce((sum, item) => sum + item.creditsUsed, 0) });
  }
  const total = days.reduce((sum, day) => sum + day.used, 0);
  const peak = Math.max(1, ...days.map((day) => day.used));
  byId('usage-summary').textContent =
    total === 0
      ? 'No usage in the last 30 days.'
      : `${number.format(total)} credits used in the last 30 days; the busiest day used ${number.format(peak)}.`;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 300 100');
  svg.setAttribute('preserveAspectRatio', 'none');
  const axis = document.createElementNS(svg.namespaceURI, 'line');
  for (const [name, value] of Object.entries({ x1: '0', y1: '99.5', x2: '300', y2: '99.5' })) axis.setAttribute(name, value);
  svg.append(axis);
  days.forEach((day, index) => {
    if (day.used === 0) return;
    const height = Math.max(2, (day.used / peak) * 96);
    const bar = document.createElementNS(svg.namespaceURI, 'rect');
    for (const [name, value] of Object.entries({ x: String(index * 10 + 1), y: String(99 - height), width: '8', height: String(height) }))
      bar.setAttribute(name, value);
    const title = document.createElementNS(svg.namespaceURI, 'title');
    title.textContent = `${day.date}: ${number.format(day.used)} credits`;
    bar.append(title);
    svg.append(bar);
  });
  byId('usage-chart').replaceChildren(svg);
}

function signed(delta: number): string {
  return delta > 0 ? `+${number.format(delta)}` : number.format(delta);
}

export function renderLedger(rows: LedgerRow[], append: boolean): void {
  const cells = rows.map((row) => [
    utc(row.at),
    row.cause,
    String(row.productId),
    signed(row.delta),
    number.format(row.credits),
    row.actor,
  ]);
  const holder = byId('ledger');
  const body = holder.querySelector('tbody');
  if (append && body) {
    for (const row of table('', [], cells).querySelectorAll('tbody tr')) body.append(row);
    return;
  }
  holder.replaceChildren(
    cells.length === 0
      ? element('p', { text: 'No balance change yet.', className: 'help' })
      : table('Every balance change, newest first', ['When', 'Cause', 'Product (pool)', 'Change', 'Credits after', 'By'], cells, [0, 1, 5]),
  );
}

/** `{"productId":1,"amount":50,"reason":"goodwill"}` → `productId 1, amount 50, reason goodwill`. */
function describe(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([name, value]) => `${name} ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`)
    .join(', ');
}

export function renderAudit(rows: AuditRow[], append: boolean): void {
  const cells = rows.map((row) => [
    utc(row.at),
    row.actor,
    row.action,
    row.accountId === null ? '' : String(row.accountId),
    describe(row.details),
  ]);
  const holder = byId('audit-log');
  const body = holder.querySelector('tbody');
  if (append && body) {
    for (const row of table('', [], cells).querySelectorAll('tbody tr')) body.append(row);
    return;
  }
  holder.replaceChildren(
    cells.length === 0
      ? element('p', { text: 'Nothing recorded yet.', className: 'help' })
      : table('Who did what, newest first', ['When', 'Who', 'What', 'Account', 'Details'], cells, [0, 1, 2, 4]),
  );
}
