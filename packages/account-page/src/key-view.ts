import { ApiError } from '@platform/client';
import { byId, copyField } from '@platform/page-dom';
import { rotateKey } from './api';
import { showFieldError } from './dom';
import { describeFailure } from './messages';

/** Opens the confirmation: what replacing the key does, and the current key (only the key may replace itself). */
export function openRotation(): void {
  const input = byId<HTMLInputElement>('current-key');
  input.value = '';
  showFieldError('current-key-error', [], input);
  byId<HTMLDialogElement>('rotate-dialog').showModal();
  input.focus();
}

export function closeRotation(): void {
  byId<HTMLInputElement>('current-key').value = '';
  byId<HTMLDialogElement>('rotate-dialog').close();
}

/** Replaces the key; the new one, or undefined when the API refused (its reason shown next to the field). */
export async function confirmRotation(): Promise<string | undefined> {
  const input = byId<HTMLInputElement>('current-key');
  const current = input.value.trim();
  if (current === '') {
    showFieldError('current-key-error', ['Enter the API key you use now.'], input);
    input.focus();
    return undefined;
  }
  const button = byId<HTMLButtonElement>('rotate-confirm');
  button.disabled = true;
  try {
    const apiKey = await rotateKey(current);
    closeRotation();
    return apiKey;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showFieldError('current-key-error', [describeFailure(error, 'rotate')], input);
    input.focus();
    return undefined;
  } finally {
    button.disabled = false;
  }
}

/** Shows the new key once, with a copy button, until the customer says it is stored. */
export function showNewKey(apiKey: string): void {
  const value = byId<HTMLInputElement>('new-key-value');
  value.value = apiKey;
  byId('copy-status').textContent = '';
  byId('new-key').hidden = false;
  byId('rotate-open').hidden = true;
  value.focus();
  value.select();
}

export const copyNewKey = (): Promise<void> => copyField('new-key-value', 'copy-status');

/** Forgets the new key: it is never shown again. */
export function hideNewKey(): void {
  byId<HTMLInputElement>('new-key-value').value = '';
  byId('new-key').hidden = true;
  byId('rotate-open').hidden = false;
  byId('rotate-open').focus();
}
