import { byId } from '@platform/page-dom';
import type { SignedInAccount } from './api';

/** The header names the signed-in account: its e-mail and id (CONTRACT §4.7). */
export function showSignedIn(account: SignedInAccount): void {
  const slot = byId('signed-in-as');
  slot.textContent = `${account.email} · account ${account.id}`;
  slot.title = `Signed in as ${account.email} (account id ${account.id})`;
  slot.hidden = false;
}

/** TOP_UP_URL: the page links to the operator's billing page; without one it offers no such action. */
export function showTopUp(topUpUrl: string | null | undefined): void {
  const link = byId<HTMLAnchorElement>('top-up');
  if (typeof topUpUrl === 'string' && topUpUrl !== '') {
    link.href = topUpUrl;
    link.hidden = false;
  } else {
    link.hidden = true;
  }
}

/** BRAND_NAME in the header and the tab's title. */
export function showBrand(brandName: string | undefined): void {
  if (brandName === undefined || brandName === '') return;
  byId('brand').textContent = brandName;
  document.title = `Your account · ${brandName}`;
}
