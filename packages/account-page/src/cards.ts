import { ApiError } from '@platform/client';
import { byId, element } from '@platform/page-dom';
import { describeFailure } from './messages';

/**
 * Loads one card of the page on its own: a skeleton while it loads (`aria-busy`), and when it
 * fails a sentence in the card with a Retry button, so one failing call leaves the other cards
 * readable. A refused session (401, 403) goes to `ended` instead: the whole page signs out.
 */
export async function loadCard(cardId: string, load: () => Promise<void>, ended: (error: ApiError) => void): Promise<void> {
  const card = byId(cardId);
  card.querySelector(':scope > .card-error')?.remove();
  card.setAttribute('aria-busy', 'true');
  try {
    await load();
    card.setAttribute('aria-busy', 'false');
  } catch (error) {
    card.setAttribute('aria-busy', 'false');
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      ended(error);
      return;
    }
    if (!(error instanceof ApiError)) console.error(error);
    const text = error instanceof ApiError ? describeFailure(error, 'load') : 'This part of the page could not be shown.';
    const retry = element('button', { text: 'Retry', className: 'button secondary', attributes: { type: 'button' } });
    const box = element('div', { className: 'card-error', attributes: { role: 'alert' } }, [
      element('p', { text: `This could not be loaded. ${text}` }),
      retry,
    ]);
    retry.addEventListener('click', () => void loadCard(cardId, load, ended));
    card.querySelector(':scope > h2')?.after(box);
    card.classList.add('failed');
    return;
  }
  card.classList.remove('failed');
}
