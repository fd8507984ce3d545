import { ApiError } from '@platform/client';
import { byId, copyField, showNotice } from '@platform/page-dom';
import './styles.css';
import './states.css';
import { loadAlerts, submitAlerts } from './alerts-view';
import {
  closeSession,
  loadPageConfig,
  openSession,
  readBalance,
  readSettings,
  readSignedIn,
  readUsageHistory,
  type PageConfig,
} from './api';
import { loadCard } from './cards';
import { loadCreditHistory } from './credit-history-view';
import { renderBalance } from './balance-view';
import { showFieldError } from './dom';
import { closeRotation, confirmRotation, copyNewKey, hideNewKey, openRotation, showNewKey } from './key-view';
import { describeFailure, sessionEndedText, SESSION_ENDED, type Action } from './messages';
import { clearSession, loadSession, saveSession } from './session';
import { showBrand, showSignedIn, showTopUp } from './account-view';
import { HISTORY_DAYS, renderUsage } from './usage-view';
import { closeRemoval, loadWebhook, openRemoval, removeWebhook, submitWebhook, testWebhook } from './webhook-view';

/** The session's token; a call that gets a 401 ends the session. */
function token(): string {
  const session = loadSession();
  if (!session) throw new ApiError({ status: 401, code: 401, messages: SESSION_ENDED });
  return session.token;
}

function showSignedOut(notice?: { text: string; kind: 'error' | 'info' }): void {
  clearSession();
  byId('account').hidden = true;
  byId('sign-out').hidden = true;
  byId('signed-in-as').hidden = true;
  byId('sign-in').hidden = false;
  showNotice(notice?.text, notice?.kind);
  byId('api-key').focus();
  document.body.dataset.state = 'signed-out';
}

/** Shows a failure as a sentence; a 401 signs the page out first. */
function report(error: unknown, action: Action): void {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403) && action !== 'sign-in') {
    showSignedOut({ text: sessionEndedText(error), kind: 'error' });
    return;
  }
  const text = error instanceof ApiError ? describeFailure(error, action) : 'Something went wrong in the page. Reload it and try again.';
  if (!(error instanceof ApiError)) console.error(error);
  showNotice(text, 'error');
}

/** Each card loads on its own, with a skeleton, and a Retry button when it fails (the others stay readable). */
async function showAccount(config: PageConfig): Promise<void> {
  byId('sign-in').hidden = true;
  byId('account').hidden = false;
  byId('sign-out').hidden = false;
  const ended = (error: ApiError) => report(error, 'load');
  showSignedIn(await readSignedIn(token()));
  await Promise.all([
    loadCard(
      'balance',
      async () => {
        const [balance, settings] = await Promise.all([readBalance(token()), readSettings(token())]);
        renderBalance(balance, config, settings.lowBalanceAlert?.threshold ?? 0);
      },
      ended,
    ),
    loadCard('usage', async () => renderUsage(await readUsageHistory(token(), HISTORY_DAYS)), ended),
    loadCard('history', () => loadCreditHistory(token()), ended),
    loadCard('alerts', async () => void (await loadAlerts(token())), ended),
    loadCard('webhook', () => loadWebhook(token()), ended),
  ]);
  if (loadSession()) document.body.dataset.state = 'signed-in';
}

async function signIn(config: PageConfig): Promise<void> {
  const input = byId<HTMLInputElement>('api-key');
  const apiKey = input.value.trim();
  showFieldError('api-key-error', [], input);
  if (apiKey === '') {
    showFieldError('api-key-error', ['Enter your API key.'], input);
    return;
  }
  try {
    saveSession(await openSession(apiKey));
    input.value = '';
    showNotice(undefined);
    await showAccount(config);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) showFieldError('api-key-error', [describeFailure(error, 'sign-in')], input);
    else report(error, 'sign-in');
  }
}

async function signOut(): Promise<void> {
  const session = loadSession();
  try {
    if (session) await closeSession(session.token);
    showSignedOut({ text: 'You are signed out. The page’s session no longer works.', kind: 'info' });
  } catch (error) {
    // A token that no longer authenticates is dead already; anything else is said as it is.
    if (error instanceof ApiError && error.status === 401) showSignedOut({ text: 'You are signed out.', kind: 'info' });
    else
      showSignedOut({
        text: `You are signed out of this page, but the token could not be revoked: ${error instanceof ApiError ? describeFailure(error, 'sign-out') : 'unknown error.'} It expires within an hour.`,
        kind: 'error',
      });
  }
}

/** After a rotation the session's token is dead: the new key buys the next one, then is shown once. */
async function rotate(): Promise<void> {
  const apiKey = await confirmRotation();
  if (apiKey === undefined) return;
  showNewKey(apiKey);
  try {
    saveSession(await openSession(apiKey));
    showNotice('Your API key was replaced. The old key and every earlier access token no longer work.', 'info');
  } catch {
    clearSession();
    showNotice('Your API key was replaced. Store the new key, then sign in again with it.', 'info');
  }
}

function wire(config: PageConfig): void {
  const on = (id: string, event: string, run: () => Promise<void> | void, action: Action) =>
    byId(id).addEventListener(event, (domEvent) => {
      domEvent.preventDefault();
      Promise.resolve()
        .then(run)
        .catch((error: unknown) => report(error, action));
    });
  on('sign-in-form', 'submit', () => signIn(config), 'sign-in');
  on('sign-out', 'click', signOut, 'sign-out');
  on('alerts-form', 'submit', () => submitAlerts(token()), 'save-alerts');
  on('rotate-open', 'click', openRotation, 'rotate');
  on('rotate-cancel', 'click', closeRotation, 'rotate');
  on('rotate-form', 'submit', rotate, 'rotate');
  on('webhook-form', 'submit', () => submitWebhook(token()), 'save-webhook');
  on('webhook-remove', 'click', openRemoval, 'save-webhook');
  on('webhook-remove-cancel', 'click', closeRemoval, 'save-webhook');
  on('webhook-remove-form', 'submit', () => removeWebhook(token()), 'save-webhook');
  on('copy-secret', 'click', () => copyField('webhook-secret-value', 'secret-copy-status'), 'save-webhook');
  on('history-more', 'click', () => loadCreditHistory(token(), true), 'load');
  on('webhook-test', 'click', () => testWebhook(token()), 'test-webhook');
  on('copy-key', 'click', copyNewKey, 'rotate');
  on('new-key-done', 'click', hideNewKey, 'rotate');
}

async function start(): Promise<void> {
  let config: PageConfig;
  try {
    config = await loadPageConfig();
  } catch (error) {
    report(error, 'load');
    return;
  }
  showBrand(config.brandName);
  showTopUp(config.topUpUrl);
  wire(config);
  if (!loadSession()) {
    showSignedOut();
    return;
  }
  await showAccount(config).catch((error: unknown) => report(error, 'load'));
}

void start();
