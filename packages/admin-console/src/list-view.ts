/** The accounts found: sortable columns, each account's pools with low and empty marks, and totals. */
import { byId, element } from '@platform/page-dom';
import type { AccountItem } from './api';
import { poolName } from './catalogue';
import { table, utc } from './dom';

const number = new Intl.NumberFormat('en-US');
type SortKey = 'id' | 'email' | 'status' | 'created' | 'credits';
const COLUMNS: Array<{ key: SortKey | undefined; label: string }> = [
  { key: 'id', label: 'Id' },
  { key: 'email', label: 'E-mail' },
  { key: 'status', label: 'Status' },
  { key: 'created', label: 'Created' },
  { key: undefined, label: 'Pools' },
  { key: 'credits', label: 'Credits' },
];

let rows: AccountItem[] = [];
let sort: { key: SortKey; descending: boolean } = { key: 'id', descending: true };
let openAccount: (id: number) => void = () => undefined;

export function statusBadge(disabled: boolean): HTMLElement {
  return element('span', { text: disabled ? 'Disabled' : 'Active', className: disabled ? 'badge disabled' : 'badge' });
}

const totalOf = (account: AccountItem) => account.pools.reduce((sum, pool) => sum + pool.credits, 0);

function sortValue(account: AccountItem, key: SortKey): string | number {
  if (key === 'email') return account.email.toLowerCase();
  if (key === 'status') return account.disabled ? 1 : 0;
  if (key === 'created') return account.createdAt;
  if (key === 'credits') return totalOf(account);
  return account.id;
}

function poolsCell(account: AccountItem): HTMLElement {
  return element(
    'ul',
    { className: 'pool-list' },
    account.pools.map((pool) =>
      element('li', { className: pool.credits === 0 ? 'mark empty' : '' }, [
        document.createTextNode(`${poolName(pool.pool)} ${number.format(pool.credits)}`),
        ...(pool.credits === 0 ? [element('span', { className: 'badge disabled', text: 'Empty' })] : []),
      ]),
    ),
  );
}

function header(label: string, key: SortKey | undefined): string | Node {
  if (key === undefined) return label;
  const arrow = sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : '';
  const button = element('button', { text: `${label}${arrow}`, className: 'link-button sort', attributes: { type: 'button' } });
  button.dataset.sort = key;
  button.addEventListener('click', () => {
    sort = { key, descending: sort.key === key ? !sort.descending : key === 'id' || key === 'credits' || key === 'created' };
    draw();
  });
  return button;
}

function draw(): void {
  const sorted = [...rows].sort((a, b) => {
    const [left, right] = [sortValue(a, sort.key), sortValue(b, sort.key)];
    const order = left < right ? -1 : left > right ? 1 : 0;
    return sort.descending ? -order : order;
  });
  const cells = sorted.map((account) => {
    const button = element('button', { text: account.email, className: 'link-button', attributes: { type: 'button' } });
    button.addEventListener('click', () => openAccount(account.id));
    return [
      String(account.id),
      button,
      statusBadge(account.disabled),
      utc(account.createdAt),
      poolsCell(account),
      number.format(totalOf(account)),
    ];
  });
  const holder = byId('search-results');
  if (rows.length === 0) {
    holder.replaceChildren();
    byId('search-totals').textContent = '';
    return;
  }
  const caption = `Accounts, sorted by ${COLUMNS.find((column) => column.key === sort.key)?.label.toLowerCase() ?? 'id'}`;
  const built = table(
    caption,
    COLUMNS.map((column) => column.label),
    cells,
    [1, 2, 4],
  );
  built.querySelector('thead tr')?.replaceChildren(
    ...COLUMNS.map((column, index) => {
      const th = element('th', { className: [1, 2, 4].includes(index) ? 'text' : '', attributes: { scope: 'col' } });
      if (column.key !== undefined)
        th.setAttribute('aria-sort', sort.key === column.key ? (sort.descending ? 'descending' : 'ascending') : 'none');
      th.append(header(column.label, column.key));
      return th;
    }),
  );
  holder.replaceChildren(built);
  const disabled = rows.filter((account) => account.disabled).length;
  const empty = rows.filter((account) => account.pools.some((pool) => pool.credits === 0)).length;
  byId('search-totals').textContent =
    `${rows.length} account${rows.length === 1 ? '' : 's'} shown · ${number.format(rows.reduce((sum, a) => sum + totalOf(a), 0))} credits in all · ` +
    `${disabled} disabled · ${empty} with an empty pool`;
}

export function renderResults(accounts: AccountItem[], append: boolean, open: (id: number) => void): void {
  openAccount = open;
  rows = append ? [...rows, ...accounts] : accounts;
  draw();
}
