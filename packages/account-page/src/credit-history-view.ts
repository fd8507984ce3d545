import { byId, element } from '@platform/page-dom';
import { readCreditHistory, type CreditChange } from './api';
import { formatCredits } from './messages';

const WHEN = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
let nextCursor: string | null = null;

function row(change: CreditChange): HTMLTableRowElement {
  const delta = change.delta > 0 ? `+${formatCredits(change.delta)}` : `−${formatCredits(-change.delta)}`;
  return element('tr', {}, [
    element('th', { text: WHEN.format(new Date(change.at)), attributes: { scope: 'row', 'data-label': 'Time (UTC)' } }),
    element('td', { text: change.cause === 'top-up' ? 'Top-up' : 'Adjustment', attributes: { 'data-label': 'What' } }),
    element('td', { text: change.product.name, attributes: { 'data-label': 'Product (pool)' } }),
    element('td', {
      text: delta,
      className: change.delta > 0 ? 'result ok' : 'result failed',
      attributes: { 'data-label': 'Change' },
    }),
    element('td', { text: formatCredits(change.credits), attributes: { 'data-label': 'Credits after' } }),
  ]);
}

/** The account's top-ups and adjustments, newest first (CONTRACT §4.8); `more` appends the next page. */
export async function loadCreditHistory(token: string, more = false): Promise<void> {
  const page = await readCreditHistory(token, more ? (nextCursor ?? undefined) : undefined);
  nextCursor = page.nextCursor;
  byId('history-more').hidden = nextCursor === null;
  const slot = byId('history-table');
  const body = slot.querySelector('tbody');
  if (more && body) {
    body.append(...page.data.map(row));
    return;
  }
  if (page.data.length === 0) {
    slot.replaceChildren(element('p', { className: 'help', text: 'No top-up or adjustment yet.' }));
    return;
  }
  const head = element(
    'tr',
    {},
    ['Time (UTC)', 'What', 'Product (pool)', 'Change', 'Credits after'].map((text) =>
      element('th', { text, attributes: { scope: 'col' } }),
    ),
  );
  slot.replaceChildren(
    element('table', { className: 'stacked history' }, [
      element('caption', { text: 'Credits added or taken away, newest first' }),
      element('thead', {}, [head]),
      element('tbody', {}, page.data.map(row)),
    ]),
  );
}
