/**
 * The operator console (CONTRACT §7, served at {user_url}/admin/): every call goes to the user
 * service's admin API with the operator's admin token, kept in sessionStorage only. Every change
 * asks for confirmation and says what it will do.
 */
import { byId, showNotice } from '@platform/page-dom';
import './styles.css';
import { api, ApiError, session, type AccountDetails } from './api';
import { confirmAction, showFieldError } from './dom';
import { renderAccount, renderAudit, renderLedger, renderResults, renderUsage } from './views';

const state: {
  account?: AccountDetails;
  searchCursor?: string | null;
  lastSearch?: Record<string, string>;
  ledgerCursor?: string | null;
  auditCursor?: string | null;
} = {};
const INTEGER = /^-?[0-9]+$/;
const EXACT_EMAIL = /^[^@\s%_]+@[^@\s%_]+$/;

function showSignIn(message?: string): void {
  session.clear();
  byId('console').hidden = true;
  byId('sign-out').hidden = true;
  byId('sign-in').hidden = false;
  document.body.dataset.state = 'signed-out';
  showNotice(message, 'info');
  byId<HTMLInputElement>('admin-token').focus();
}

/** A refused token signs out; anything else is shown in the banner. */
function failed(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    showSignIn('Your admin token is no longer accepted. Sign in again.');
    return;
  }
  showNotice(error instanceof Error ? error.message : String(error));
}

async function showConsole(): Promise<void> {
  byId('sign-in').hidden = true;
  byId('console').hidden = false;
  byId('sign-out').hidden = false;
  await loadAudit(false);
  document.body.dataset.state = 'signed-in';
}

async function search(more: boolean): Promise<void> {
  const text = byId<HTMLInputElement>('search-query').value.trim();
  let query = more && state.lastSearch ? state.lastSearch : EXACT_EMAIL.test(text) ? { email: text } : { q: text };
  let page = await api.search({ ...query, cursor: more ? (state.searchCursor ?? undefined) : undefined });
  // A whole e-mail that no account has exactly may still be part of one.
  if (!more && page.data.length === 0 && 'email' in query) {
    query = { q: text };
    page = await api.search(query);
  }
  state.lastSearch = query;
  state.searchCursor = page.nextCursor;
  byId('search-summary').textContent = more ? '' : page.data.length === 0 ? 'No account matches.' : `Accounts matching “${text}”:`;
  renderResults(page.data, more, (id) => void openAccount(id).catch(failed));
  byId('search-more').hidden = page.nextCursor === null;
}

async function refreshAccount(id: number): Promise<void> {
  const [account, usage, ledger] = await Promise.all([api.account(id), api.usage(id), api.ledger(id)]);
  state.account = account;
  state.ledgerCursor = ledger.nextCursor;
  renderAccount(account);
  renderUsage(usage.data);
  renderLedger(ledger.data, false);
  byId('ledger-more').hidden = ledger.nextCursor === null;
}

async function openAccount(id: number): Promise<void> {
  byId<HTMLInputElement>('credits-product').value = '';
  byId('new-key').hidden = true;
  await refreshAccount(id);
  byId('account').hidden = false;
  const only = byId<HTMLInputElement>('audit-this-account');
  only.disabled = false;
  only.checked = true;
  await loadAudit(false);
  byId('account').scrollIntoView();
}

async function loadAudit(more: boolean): Promise<void> {
  const only = byId<HTMLInputElement>('audit-this-account').checked ? state.account?.id : undefined;
  const page = await api.audit(only, more ? (state.auditCursor ?? undefined) : undefined);
  state.auditCursor = page.nextCursor;
  renderAudit(page.data, more);
  byId('audit-more').hidden = page.nextCursor === null;
}

/** After a change: the account, its ledger and the audit log as they are now, and a note. */
async function changed(note: string): Promise<void> {
  if (state.account) await refreshAccount(state.account.id);
  if (state.lastSearch) {
    const page = await api.search(state.lastSearch);
    state.searchCursor = page.nextCursor;
    renderResults(page.data, false, (id) => void openAccount(id).catch(failed));
    byId('search-more').hidden = page.nextCursor === null;
  }
  await loadAudit(false);
  showNotice(note, 'info');
}

async function changeCredits(): Promise<void> {
  const account = state.account;
  if (!account) return;
  const [productField, amountField, reasonField] = ['credits-product', 'credits-amount', 'credits-reason'].map((id) =>
    byId<HTMLInputElement>(id),
  ) as [HTMLInputElement, HTMLInputElement, HTMLInputElement];
  const [product, amount, reason] = [productField.value.trim(), amountField.value.trim(), reasonField.value.trim()];
  showFieldError('credits-error', undefined, amountField);
  if (!INTEGER.test(product) || !INTEGER.test(amount) || Number(amount) === 0 || reason === '') {
    showFieldError('credits-error', 'Give a product id, a whole number of credits other than 0, and a reason.', amountField);
    return;
  }
  const credits = Number(amount);
  const what =
    credits > 0
      ? `Add ${credits} credits to product ${product}'s pool of ${account.email}.`
      : `Take ${-credits} credits from product ${product}'s pool of ${account.email} (never below 0).`;
  if (!(await confirmAction(credits > 0 ? 'Top up?' : 'Adjust down?', `${what} Reason: “${reason}”.`, credits > 0 ? 'Top up' : 'Adjust')))
    return;
  try {
    const result = await api.credits(account.id, { productId: Number(product), amount: credits, reason });
    amountField.value = '';
    reasonField.value = '';
    await changed(`Done: product ${result.productId} now has ${result.credits} credits.`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) showFieldError('credits-error', error.message, amountField);
    else throw error;
  }
}

async function changeEmail(): Promise<void> {
  const account = state.account;
  const field = byId<HTMLInputElement>('email-value');
  const email = field.value.trim();
  if (!account || email === '') return;
  const text = `Change the e-mail of account ${account.id} from ${account.email} to ${email}? Alerts go to the new address from now on.`;
  if (!(await confirmAction('Change the e-mail?', text, 'Change e-mail'))) return;
  try {
    await api.patch(account.id, { email });
    field.value = '';
    showFieldError('email-error', undefined, field);
    await changed(`The e-mail is now ${email}.`);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 409 || error.status === 422)) showFieldError('email-error', error.message, field);
    else throw error;
  }
}

async function toggleDisabled(): Promise<void> {
  const account = state.account;
  if (!account) return;
  const disable = !account.disabled;
  const text = disable
    ? `Disable ${account.email}? Its API key and every access token are refused at once by every service until it is enabled again; tokens made before stay revoked after that.`
    : `Enable ${account.email}? Its API key works again; access tokens made before the disabling stay revoked.`;
  if (!(await confirmAction(disable ? 'Disable the account?' : 'Enable the account?', text, disable ? 'Disable' : 'Enable'))) return;
  await api.patch(account.id, { disabled: disable });
  await changed(disable ? `${account.email} is disabled.` : `${account.email} is enabled again.`);
}

async function rotateKey(): Promise<void> {
  const account = state.account;
  if (!account) return;
  const text = `Rotate the API key of ${account.email}? The current key and every token made from it stop working at once, everywhere. The new key is shown once.`;
  if (!(await confirmAction('Rotate the API key?', text, 'Rotate key'))) return;
  const { apiKey } = await api.rotate(account.id);
  byId<HTMLInputElement>('new-key-value').value = apiKey;
  byId('new-key').hidden = false;
  await changed('The key is rotated. Copy the new key now: it is not shown again.');
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
    await api.check(token);
  } catch (error) {
    const message =
      error instanceof ApiError && error.status === 401
        ? 'This admin token is not accepted.'
        : error instanceof ApiError && error.status === 429
          ? 'Too many failed attempts from this address. Wait a minute and try again.'
          : error instanceof Error
            ? error.message
            : String(error);
    showFieldError('admin-token-error', message, field);
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
on('ledger-more', 'click', async () => {
  if (!state.account || !state.ledgerCursor) return;
  const page = await api.ledger(state.account.id, state.ledgerCursor);
  state.ledgerCursor = page.nextCursor;
  renderLedger(page.data, true);
  byId('ledger-more').hidden = page.nextCursor === null;
});
on('audit-this-account', 'change', () => loadAudit(false));
on('audit-more', 'click', () => loadAudit(true));
on('credits-form', 'submit', changeCredits);
on('email-form', 'submit', changeEmail);
on('toggle-disabled', 'click', toggleDisabled);
on('rotate-key', 'click', rotateKey);

if (session.token()) showConsole().catch(failed);
else showSignIn();
