import { byId, element } from '@platform/page-dom';

/**
 * A table of rows of cells (strings, or nodes such as buttons); `text` names the left-aligned
 * columns. At phone width it stacks (the account page's `table.stacked`): one block per row, each
 * value under its column's name, instead of columns cut off at the screen's edge.
 */
export function table(caption: string, headings: string[], rows: Array<Array<string | Node>>, text: number[] = []): HTMLTableElement {
  const cell = (tag: 'th' | 'td', value: string | Node, index: number) => {
    const created = element(tag, text.includes(index) ? { className: 'text' } : {});
    if (tag === 'th') created.setAttribute('scope', 'col');
    else created.dataset.label = headings[index] ?? '';
    created.append(value);
    return created;
  };
  return element('table', { className: 'stacked' }, [
    element('caption', { text: caption }),
    element('thead', {}, [
      element(
        'tr',
        {},
        headings.map((heading, index) => cell('th', heading, index)),
      ),
    ]),
    element(
      'tbody',
      {},
      rows.map((row) =>
        element(
          'tr',
          {},
          row.map((value, index) => cell('td', value, index)),
        ),
      ),
    ),
  ]);
}

/** Shows messages under a field (or hides the slot) and marks the field invalid for assistive technology. */
export function showFieldError(slotId: string, message: string | undefined, field?: HTMLElement): void {
  const slot = byId(slotId);
  slot.textContent = message ?? '';
  slot.hidden = message === undefined;
  if (field && message !== undefined) field.setAttribute('aria-invalid', 'true');
  else field?.removeAttribute('aria-invalid');
}

/** Asks before a change, saying what it will do; resolves whether the operator confirmed. */
export function confirmAction(title: string, text: string, confirmLabel: string): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('confirm-dialog');
  byId('confirm-title').textContent = title;
  byId('confirm-text').textContent = text;
  byId('confirm-ok').textContent = confirmLabel;
  return new Promise((resolve) => {
    const cancel = byId('confirm-cancel');
    const onCancel = () => dialog.close('cancel');
    cancel.addEventListener('click', onCancel);
    dialog.addEventListener(
      'close',
      () => {
        cancel.removeEventListener('click', onCancel);
        resolve(dialog.returnValue === 'ok');
      },
      { once: true },
    );
    dialog.returnValue = '';
    byId<HTMLButtonElement>('confirm-ok').value = 'ok';
    dialog.showModal();
  });
}

/** `2026-11-27T05:00:00.000Z` → `2026-11-27 05:00 UTC`. */
export function utc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Saves text as a file through the browser's download (a CSV export). */
export function download(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = element('a', { attributes: { href: url, download: filename } });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
