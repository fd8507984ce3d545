/**
 * The operator console (CONTRACT §7, served at {user_url}/admin/): every call goes to the user
 * service's admin API with the operator's admin token, kept in sessionStorage only. It offers only
 * what the token's role may do (support: read only). Every change asks for confirmation and says
 * what it will do; a failed one says what did not happen.
 */
import { byId, copyField, showNotice } from '@platform/page-dom';
import './styles.css';
import './console.css';
import { ActionFailed, changeCredits, changeEmail, createAccount, rotateKey, toggleDisabled } from './actions';
import { api, ApiError, session } from './api';
import { fillProductPicker, setCatalogue } from './catalogue';
import { download, showFieldError } from './dom';
import { bulk, loadAudit, onLoadFailure, search } from './loaders';
import { renderLedger } from './records-view';
import { state } from './state';

function showSignIn(message?: string): void {
  session.clear();
  byId('console').hidden = true;
  byId('sign-out').hidden = true;
  byId('signed-in-as').hidden = true;
  byId('sign-in').hidden = false;
  document.body.dataset.state = 'signed-out';
  showNotice(message, 'info');
  byId<HTMLInputElement>('admin-token').focus();
}

/** A refused token signs out; a failed write says what did not happen; anything else is shown in the banner. */
function failed(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    showSignIn(`Your admin token is no longer accepted (${error.message}) Sign in again.`);
    return;
  }
  if (!(error instanceof ActionFailed) && !(error instanceof ApiError)) console.error(error);
  showNotice(error instanceof Error ? error.message : String(error));
}
onLoadFailure(failed);

/** Support tokens read only: every write control is hidden (`data-role` on the body does it in CSS too). */
function applyRole(role: 'admin' | 'support', actor: string): void {
  state.role = role;
  document.body.dataset.role = role;
  for (const control of document.querySelectorAll<HTMLElement>('[data-write]')) control.hidden = role !== 'admin';
  const who = byId('signed-in-as');
  who.textContent = role === 'admin' ? `Signed in as ${actor}` : `Signed in as ${actor} · read only (support)`;
  who.hidden = false;
}

async function showConsole(): Promise<void> {
  const [me, products] = await Promise.all([api.session(), api.products()]);
  setCatalogue(products.data);
  fillProductPicker(byId<HTMLSelectElement>('credits-product'));
  fillProductPicker(byId<HTMLSelectElement>('create-product'), 'No first top-up');
  applyRole(me.role, me.actor);
  byId('brand').textContent = `${me.brandName} · Operator console`;
  document.title = `Operator console · ${me.brandName}`;
  byId('sign-in').hidden = true;
  byId('console').hidden = false;
  byId('sign-out').hidden = false;
  await loadAudit(false);
  document.body.dataset.state = 'signed-in';
}

function on(id: string, event: 'click' | 'submit' | 'change', run: () => Promise<void>): void {
  byId(id).addEventListener(event, (evt) => {
    if (event === 'submit') evt.preventDefault();
    run().catch(failed);
  });
}

on('sign-in-form', 'submit', async () => {
  const field = byId<HTMLInputElement>('admin-token');
  const token = field.value.trim();
  try {
    await api.session(token);
  } catch (error) {
    showFieldError('admin-token-error', error instanceof Error ? error.message : String(error), field);
    return;
  }
  field.value = '';
  showFieldError('admin-token-error', undefined, field);
  session.save(token);
  showNotice(undefined);
  await showConsole();
});
on('sign-out', 'click', () => {
  showSignIn('You are signed out.');
  return Promise.resolve();
});
on('search-form', 'submit', () => search(false));
on('search-more', 'click', () => search(true));
on('search-all', 'click', bulk);
on('ledger-more', 'click', async () => {
  if (!state.account || !state.ledgerCursor) return;
  const page = await api.ledger(state.account.id, state.ledgerCursor);
  state.ledgerCursor = page.nextCursor;
  renderLedger(page.data, true);
  byId('ledger-more').hidden = page.nextCursor === null;
});
on('ledger-csv', 'click', async () => {
  if (!state.account) return;
  download(await api.ledgerCsv(state.account.id), `ledger-account-${state.account.id}.csv`);
});
on('audit-filters', 'submit', () => loadAudit(false));
on('audit-this-account', 'change', () => loadAudit(false));
on('audit-more', 'click', () => loadAudit(true));
on('audit-csv', 'click', async () => {
  await loadAudit(false);
  download(await api.auditCsv(state.auditFilters ?? {}), 'audit-log.csv');
});
on('create-form', 'submit', createAccount);
on('created-key-copy', 'click', () => copyField('created-key-value', 'created-key-status'));
on('created-key-done', 'click', () => {
  byId<HTMLInputElement>('created-key-value').value = '';
  byId('created-key').hidden = true;
  return Promise.resolve();
});
on('new-key-copy', 'click', () => copyField('new-key-value', 'new-key-status'));
on('credits-form', 'submit', changeCredits);
on('email-form', 'submit', changeEmail);
on('toggle-disabled', 'click', toggleDisabled);
on('rotate-key', 'click', rotateKey);

if (session.token()) showConsole().catch(failed);
else showSignIn();
