/** The element with this id; the page's markup (index.html) has every id the scripts use. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** A new element with text content (never HTML: account data is shown as text only) or children. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: { text?: string; className?: string; attributes?: Record<string, string> } = {},
  children: Node[] = [],
): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  if (options.text !== undefined) created.textContent = options.text;
  if (options.className !== undefined) created.className = options.className;
  for (const [name, value] of Object.entries(options.attributes ?? {})) created.setAttribute(name, value);
  created.append(...children);
  return created;
}

/** The banner at the top of the page (`#notice`): an error sentence, or a note such as "You are signed out." */
export function showNotice(text: string | undefined, kind: 'error' | 'info' = 'error'): void {
  const notice = byId('notice');
  notice.textContent = text ?? '';
  notice.hidden = text === undefined;
  notice.className = `notice ${kind}`;
}

/** Copies a read-only field's text, saying in `statusId` whether it worked (or selecting it for Ctrl+C). */
export async function copyField(fieldId: string, statusId: string): Promise<void> {
  const field = byId<HTMLInputElement>(fieldId);
  try {
    await navigator.clipboard.writeText(field.value);
    byId(statusId).textContent = 'Copied to the clipboard.';
  } catch {
    field.select();
    byId(statusId).textContent = 'Copying is blocked here: the text is selected, press Ctrl+C (or ⌘C) to copy it.';
  }
}
export * from './webhook-delivery';
