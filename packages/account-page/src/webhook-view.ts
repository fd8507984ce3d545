import { ApiError, type WebhookDelivery } from '@platform/client';
import { byId, delivered, deliveryOutcome, element } from '@platform/page-dom';
import { readDeliveries, readWebhook, saveWebhook, sendTestWebhook, type WebhookSettings } from './api';
import { showFieldError } from './dom';
import { describeFailure, fieldMessages } from './messages';

const URL_FIELD = 'webhook.url';
const WHEN = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' });

function fill(webhook: WebhookSettings | null): void {
  byId<HTMLInputElement>('webhook-url').value = webhook?.url ?? '';
  byId<HTMLInputElement>('webhook-enabled').checked = webhook?.enabled ?? true;
  byId('webhook-remove').hidden = webhook === null;
  byId('webhook-test').hidden = webhook === null;
  byId('webhook-state').textContent =
    webhook === null
      ? 'No webhook is set.'
      : webhook.enabled
        ? 'Balance events are sent to this address.'
        : webhook.disabledReason === 'gone'
          ? 'The webhook was turned off: your endpoint answered 410 Gone. Save it again to turn it back on.'
          : webhook.disabledReason === 'failing'
            ? 'The webhook was turned off: every delivery failed for 5 days. Fix the endpoint, then save it again.'
            : 'The webhook is paused: no events are sent.';
}

function clearMessages(): void {
  showFieldError('webhook-url-error', [], byId('webhook-url'));
  showFieldError('webhook-error', []);
  byId('webhook-saved').textContent = '';
}

/** The secret is shown once, right after the URL was set or changed. */
function showSecret(secret: string | undefined): void {
  byId('webhook-secret').hidden = secret === undefined;
  byId('secret-copy-status').textContent = '';
  byId<HTMLInputElement>('webhook-secret-value').value = secret ?? '';
}

function renderDeliveries(attempts: readonly WebhookDelivery[]): void {
  const slot = byId('webhook-deliveries');
  if (attempts.length === 0) {
    slot.replaceChildren(element('p', { className: 'help', text: 'No deliveries yet.' }));
    return;
  }
  const head = element(
    'tr',
    {},
    ['Time (UTC)', 'Event', 'Result', 'Next retry'].map((text) => element('th', { text, attributes: { scope: 'col' } })),
  );
  const rows = attempts.map((attempt) => {
    const ok = delivered(attempt);
    return element('tr', {}, [
      element('th', { text: WHEN.format(new Date(attempt.attemptedAt)), attributes: { scope: 'row', 'data-label': 'Time (UTC)' } }),
      element('td', { text: attempt.type, attributes: { 'data-label': 'Event', title: attempt.id } }),
      element('td', {
        text: deliveryOutcome(attempt),
        className: ok ? 'result ok' : 'result failed',
        attributes: { 'data-label': 'Result' },
      }),
      element('td', {
        text: attempt.nextRetryAt === null ? '—' : WHEN.format(new Date(attempt.nextRetryAt)),
        attributes: { 'data-label': 'Next retry' },
      }),
    ]);
  });
  slot.replaceChildren(
    element('table', { className: 'stacked deliveries' }, [
      element('caption', { text: 'The last 50 delivery attempts, newest first' }),
      element('thead', {}, [head]),
      element('tbody', {}, rows),
    ]),
  );
}

export async function loadWebhook(token: string): Promise<void> {
  clearMessages();
  showSecret(undefined);
  const [webhook, attempts] = await Promise.all([readWebhook(token), readDeliveries(token)]);
  fill(webhook);
  renderDeliveries(attempts);
}

/** A refusal of the URL is said next to the field; anything else under the form; a 401 is passed on. */
function reportRefusal(error: unknown): void {
  if (!(error instanceof ApiError) || error.status === 401) throw error;
  const messages = fieldMessages(error, URL_FIELD);
  if (messages.length > 0) {
    showFieldError(
      'webhook-url-error',
      ['That address cannot receive webhooks. Use an https:// address on the public internet (not a private, local or reserved address).'],
      byId('webhook-url'),
    );
    byId('webhook-url').focus();
  } else showFieldError('webhook-error', [describeFailure(error, 'save-webhook')]);
}

export async function submitWebhook(token: string): Promise<void> {
  clearMessages();
  const url = byId<HTMLInputElement>('webhook-url').value.trim();
  if (url === '') {
    showFieldError('webhook-url-error', ['Enter the https:// address that should receive the events.'], byId('webhook-url'));
    return;
  }
  try {
    const saved = await saveWebhook(token, { url, enabled: byId<HTMLInputElement>('webhook-enabled').checked });
    fill(saved);
    showSecret(saved?.secret);
    byId('webhook-saved').textContent = 'Webhook saved.';
  } catch (error) {
    reportRefusal(error);
  }
}

/** Asks first: removing the webhook deletes its signing secret, and setting it again makes a new one. */
export function openRemoval(): void {
  byId<HTMLDialogElement>('webhook-remove-dialog').showModal();
  byId('webhook-remove-cancel').focus();
}

export function closeRemoval(): void {
  byId<HTMLDialogElement>('webhook-remove-dialog').close();
}

export async function removeWebhook(token: string): Promise<void> {
  closeRemoval();
  clearMessages();
  try {
    fill(await saveWebhook(token, null));
    showSecret(undefined);
    byId('webhook-saved').textContent = 'Webhook removed.';
  } catch (error) {
    reportRefusal(error);
  }
}

export async function testWebhook(token: string): Promise<void> {
  clearMessages();
  try {
    const delivery = await sendTestWebhook(token);
    byId('webhook-saved').textContent = delivery.delivered
      ? `Test event delivered (your endpoint answered ${delivery.status}).`
      : `Test event not delivered: ${deliveryOutcome(delivery).replace(/^Not delivered: /, '')}.`;
    renderDeliveries(await readDeliveries(token));
  } catch (error) {
    reportRefusal(error);
  }
}
