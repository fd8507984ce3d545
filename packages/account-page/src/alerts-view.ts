import { ApiError, type NotificationSettings } from '@platform/client';
import { byId } from '@platform/page-dom';
import { readSettings, saveSettings } from './api';
import { showFieldError } from './dom';
import { describeFailure, fieldMessages } from './messages';

const THRESHOLD_FIELD = 'lowBalanceAlert.threshold';
const EMAIL_FIELD = 'email';
/** The alert address as loaded: the form sends `email` only when it was changed. */
let loadedEmail = '';

function fill(settings: NotificationSettings): void {
  byId<HTMLInputElement>('low-enabled').checked = settings.lowBalanceAlert?.enabled ?? true;
  byId<HTMLInputElement>('threshold').value = String(settings.lowBalanceAlert?.threshold ?? '');
  byId<HTMLInputElement>('zero-enabled').checked = settings.zeroBalanceAlert?.enabled ?? true;
  loadedEmail = (settings as { email?: string | null }).email ?? '';
  byId<HTMLInputElement>('alert-email').value = loadedEmail;
  byId('alert-email-now').textContent = loadedEmail === '' ? '' : `Alerts go to ${loadedEmail}.`;
}

function clearMessages(): void {
  showFieldError('threshold-error', [], byId('threshold'));
  showFieldError('alert-email-error', [], byId('alert-email'));
  showFieldError('alerts-error', []);
  byId('alerts-saved').textContent = '';
}

/** Fills the form; the settings are passed on (the balance marks pools under the threshold). */
export async function loadAlerts(token: string): Promise<NotificationSettings> {
  clearMessages();
  const settings = await readSettings(token);
  fill(settings);
  return settings;
}

/**
 * Saves the form through the settings API. The threshold goes as typed, so the API's own 422
 * message appears next to the field; any other failure is a sentence under the form. A 401 is
 * passed on (the session ended).
 */
export async function submitAlerts(token: string): Promise<void> {
  clearMessages();
  const typed = byId<HTMLInputElement>('threshold').value.trim();
  const email = byId<HTMLInputElement>('alert-email').value.trim();
  try {
    const saved = await saveSettings(token, {
      lowBalanceAlert: { enabled: byId<HTMLInputElement>('low-enabled').checked, threshold: typed === '' ? null : typed },
      zeroBalanceAlert: { enabled: byId<HTMLInputElement>('zero-enabled').checked },
      // An emptied field goes back to the account's own e-mail.
      ...(email === loadedEmail ? {} : { email: email === '' ? null : email }),
    });
    fill(saved);
    byId('alerts-saved').textContent = 'Alerts saved.';
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401) throw error;
    const emailMessages = fieldMessages(error, EMAIL_FIELD);
    const messages = fieldMessages(error, THRESHOLD_FIELD);
    if (emailMessages.length > 0) {
      showFieldError('alert-email-error', emailMessages, byId('alert-email'));
      byId('alert-email').focus();
    }
    if (messages.length > 0) {
      showFieldError('threshold-error', messages, byId('threshold'));
      byId('threshold').focus();
    } else if (emailMessages.length === 0) {
      showFieldError('alerts-error', [describeFailure(error, 'save-alerts')]);
    }
  }
}
