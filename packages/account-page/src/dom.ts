import { byId } from '@platform/page-dom';

/** Shows messages under a field (or hides the slot when there are none) and marks the field invalid for assistive technology. */
export function showFieldError(slotId: string, messages: readonly string[], field?: HTMLElement): void {
  const slot = byId(slotId);
  slot.textContent = messages.join(' ');
  slot.hidden = messages.length === 0;
  if (field) {
    if (messages.length > 0) field.setAttribute('aria-invalid', 'true');
    else field.removeAttribute('aria-invalid');
  }
}
