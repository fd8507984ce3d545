/**
 * The console's writes: each checks its input before asking (no confirmation of a request the
 * API would refuse), asks saying what it will do, and on failure says what did not happen.
 */
import { byId } from '@platform/page-dom';
import { api, ApiError } from './api';
import { productName } from './catalogue';
import { confirmAction, showFieldError } from './dom';
import { changed, openAccount } from './loaders';
import { state } from './state';

const INTEGER = /^-?[0-9]+$/;
const MAILBOX = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** A failed write: what did not happen, then why. 422 and 409 go next to the form's field instead. */
export class ActionFailed extends Error {}

function notDone(what: string, error: unknown): never {
  if (error instanceof ApiError && error.status === 401) throw error;
  const why = error instanceof Error ? error.message : String(error);
  throw new ActionFailed(`${what} ${why}`);
}

export async function createAccount(): Promise<void> {
  const [emailField, productField, creditsField] = [
    byId<HTMLInputElement>('create-email'),
    byId<HTMLSelectElement>('create-product'),
    byId<HTMLInputElement>('create-credits'),
  ];
  const [email, product, credits] = [emailField.value.trim(), productField.value, creditsField.value.trim()];
  showFieldError('create-error', undefined, emailField);
  if (!MAILBOX.test(email) || (product !== '' && !/^[0-9]+$/.test(credits)) || (product === '' && credits !== '')) {
    showFieldError('create-error', 'Give an e-mail address, and for a first top-up a product and a whole number of credits.', emailField);
    return;
  }
  try {
    const created = await api.create({ email, credits: product === '' ? {} : { [product]: Number(credits) } });
    emailField.value = '';
    creditsField.value = '';
    productField.value = '';
    byId<HTMLInputElement>('created-key-value').value = created.apiKey;
    byId('created-key-status').textContent = '';
    byId('created-key-for').textContent = `API key of ${created.email} (account ${created.id})`;
    byId('created-key').hidden = false;
    await openAccount(created.id);
    byId('create').scrollIntoView();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 409 || error.status === 422))
      showFieldError('create-error', `No account was created: ${error.message}`, emailField);
    else notDone('No account was created.', error);
  }
}

export async function changeCredits(): Promise<void> {
  const account = state.account;
  if (!account) return;
  const productField = byId<HTMLSelectElement>('credits-product');
  const [amountField, reasonField] = [byId<HTMLInputElement>('credits-amount'), byId<HTMLInputElement>('credits-reason')];
  const [product, amount, reason] = [productField.value, amountField.value.trim(), reasonField.value.trim()];
  showFieldError('credits-error', undefined, amountField);
  if (product === '' || !INTEGER.test(amount) || Number(amount) === 0 || reason === '') {
    showFieldError('credits-error', 'Choose a product, give a whole number of credits other than 0, and a reason.', amountField);
    return;
  }
  const credits = Number(amount);
  const name = productName(Number(product));
  const what =
    credits > 0
      ? `Add ${credits} credits to ${name}'s pool of ${account.email}.`
      : `Take ${-credits} credits from ${name}'s pool of ${account.email} (never below 0).`;
  if (!(await confirmAction(credits > 0 ? 'Top up?' : 'Adjust down?', `${what} Reason: “${reason}”.`, credits > 0 ? 'Top up' : 'Adjust')))
    return;
  try {
    const result = await api.credits(account.id, { productId: Number(product), amount: credits, reason });
    amountField.value = '';
    reasonField.value = '';
    await changed(`Done: ${productName(result.productId)}'s pool now has ${result.credits} credits.`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 422)
      showFieldError('credits-error', `Nothing changed: ${error.message}`, amountField);
    else notDone('The credits were not changed.', error);
  }
}

export async function changeEmail(): Promise<void> {
  const account = state.account;
  const field = byId<HTMLInputElement>('email-value');
  const email = field.value.trim();
  if (!account) return;
  if (!MAILBOX.test(email)) {
    showFieldError('email-error', 'Give one e-mail address, such as name@example.com.', field);
    return;
  }
  const text = `Change the e-mail of account ${account.id} from ${account.email} to ${email}? Alerts go to the new address from now on.`;
  if (!(await confirmAction('Change the e-mail?', text, 'Change e-mail'))) return;
  try {
    await api.patch(account.id, { email });
    field.value = '';
    showFieldError('email-error', undefined, field);
    await changed(`The e-mail is now ${email}.`);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 409 || error.status === 422))
      showFieldError('email-error', `The e-mail was not changed: ${error.message}`, field);
    else notDone('The e-mail was not changed.', error);
  }
}

export async function toggleDisabled(): Promise<void> {
  const account = state.account;
  if (!account) return;
  const disable = !account.disabled;
  const text = disable
    ? `Disable ${account.email}? Its API key and every access token are refused at once by every service until it is enabled again; tokens made before stay revoked after that.`
    : `Enable ${account.email}? Its API key works again; access tokens made before the disabling stay revoked.`;
  if (!(await confirmAction(disable ? 'Disable the account?' : 'Enable the account?', text, disable ? 'Disable' : 'Enable'))) return;
  try {
    await api.patch(account.id, { disabled: disable });
  } catch (error) {
    notDone(
      disable ? 'The account was not disabled: its key still works.' : 'The account was not enabled: its key is still refused.',
      error,
    );
  }
  await changed(disable ? `${account.email} is disabled.` : `${account.email} is enabled again.`);
}

export async function rotateKey(): Promise<void> {
  const account = state.account;
  if (!account) return;
  const text = `Rotate the API key of ${account.email}? The current key and every token made from it stop working at once, everywhere. The new key is shown once.`;
  if (!(await confirmAction('Rotate the API key?', text, 'Rotate key'))) return;
  let apiKey: string;
  try {
    ({ apiKey } = await api.rotate(account.id));
  } catch (error) {
    notDone('The key was not rotated: the current key still works.', error);
  }
  byId<HTMLInputElement>('new-key-value').value = apiKey;
  byId('new-key-status').textContent = '';
  byId('new-key').hidden = false;
  await changed('The key is rotated. Copy the new key now: it is not shown again.');
}
