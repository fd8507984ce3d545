/** Reading the admin API into the console's views: the account list, one account, its ledger, the audit log. */
import { byId, showNotice } from '@platform/page-dom';
import { api, type AccountItem, type AuditFilters } from './api';
import { renderAccount } from './account-view';
import { renderResults } from './list-view';
import { renderAudit, renderLedger } from './records-view';
import { state } from './state';
import { renderUsage } from './usage-chart';

const EXACT_EMAIL = /^[^@\s%_]+@[^@\s%_]+$/;
/** The bulk view reads at most this many accounts (pages of 100). */
const BULK_LIMIT = 1_000;
let report: (error: unknown) => void = () => undefined;

export function onLoadFailure(handler: (error: unknown) => void): void {
  report = handler;
}

const open = (id: number) => void openAccount(id).catch(report);

function filters(): Record<string, string> {
  const query: Record<string, string> = {};
  const status = byId<HTMLSelectElement>('search-status').value;
  const balance = byId<HTMLSelectElement>('search-balance').value;
  if (status !== '') query.status = status;
  if (balance !== '') query.balance = balance;
  return query;
}

export async function search(more: boolean): Promise<void> {
  const text = byId<HTMLInputElement>('search-query').value.trim();
  const textQuery = text === '' ? {} : EXACT_EMAIL.test(text) ? { email: text } : { q: text };
  let query = more && state.lastSearch ? state.lastSearch : { ...textQuery, ...filters() };
  let page = await api.search({ ...query, cursor: more ? (state.searchCursor ?? undefined) : undefined });
  // A whole e-mail that no account has exactly may still be part of one.
  if (!more && page.data.length === 0 && 'email' in query) {
    query = { q: text, ...filters() };
    page = await api.search(query);
  }
  state.lastSearch = query;
  state.searchCursor = page.nextCursor;
  // The table's caption says the order and its totals line the count: the status line only announces.
  const found = page.data.length;
  byId('search-summary').textContent = more
    ? ''
    : found === 0
      ? 'No account matches.'
      : `${found === 1 ? '1 account' : `${found} accounts`} found.`;
  renderResults(page.data, more, open);
  byId('search-more').hidden = page.nextCursor === null;
}

/** Every account that matches the filters (up to 1,000), with totals: the bulk view. */
export async function bulk(): Promise<void> {
  const query = filters();
  const all: AccountItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.search({ ...query, limit: '100', cursor });
    all.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && all.length < BULK_LIMIT);
  state.lastSearch = query;
  state.searchCursor = null;
  byId('search-summary').textContent =
    cursor === undefined
      ? `Every account that matches the filters: ${all.length}.`
      : `Only the first ${all.length} accounts that match the filters are listed.`;
  renderResults(all, false, open);
  byId('search-more').hidden = true;
}

export async function refreshAccount(id: number): Promise<void> {
  const [account, usage, ledger, rotations] = await Promise.all([
    api.account(id),
    api.usage(id),
    api.ledger(id),
    api.audit({ accountId: String(id), action: 'api-key.rotate' }),
  ]);
  state.account = account;
  state.ledgerCursor = ledger.nextCursor;
  renderAccount(account, rotations.data[0]);
  renderUsage(usage.data);
  renderLedger(ledger.data, false);
  byId('ledger-more').hidden = ledger.nextCursor === null;
}

export async function openAccount(id: number): Promise<void> {
  byId<HTMLSelectElement>('credits-product').value = '';
  byId('new-key').hidden = true;
  await refreshAccount(id);
  byId('account').hidden = false;
  const only = byId<HTMLInputElement>('audit-this-account');
  only.disabled = false;
  only.checked = true;
  await loadAudit(false);
  byId('account').scrollIntoView();
}

function auditFilters(): AuditFilters {
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  const chosen: AuditFilters = {};
  const accountId = byId<HTMLInputElement>('audit-this-account').checked ? state.account?.id : undefined;
  if (accountId !== undefined) chosen.accountId = String(accountId);
  if (value('audit-actor') !== '') chosen.actor = value('audit-actor');
  if (value('audit-action') !== '') chosen.action = value('audit-action');
  if (value('audit-from') !== '') chosen.from = value('audit-from');
  // A day is inclusive: "to 2026-12-06" means before the 7th.
  if (value('audit-to') !== '') chosen.to = new Date(Date.parse(`${value('audit-to')}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return chosen;
}

export async function loadAudit(more: boolean): Promise<void> {
  const chosen = more && state.auditFilters ? state.auditFilters : auditFilters();
  const page = await api.audit(chosen, more ? (state.auditCursor ?? undefined) : undefined);
  state.auditFilters = chosen;
  state.auditCursor = page.nextCursor;
  renderAudit(page.data, more);
  byId('audit-more').hidden = page.nextCursor === null;
}

/** After a change: the account, its ledger and the audit log as they are now, and a note. */
export async function changed(note: string): Promise<void> {
  if (state.account) await refreshAccount(state.account.id);
  if (state.lastSearch) {
    const page = await api.search(state.lastSearch);
    state.searchCursor = page.nextCursor;
    renderResults(page.data, false, open);
    byId('search-more').hidden = page.nextCursor === null;
  }
  await loadAudit(false);
  showNotice(note, 'info');
}
