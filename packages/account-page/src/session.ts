import type { GrantedToken } from './api';

// The tab's session: the page session (ps_…) and when it expires, never the API key. sessionStorage
// ends with the tab, and is not shared with other tabs.
const KEY = 'account-access.session';

export function loadSession(now = Date.now()): GrantedToken | undefined {
  const raw = sessionStorage.getItem(KEY);
  if (raw === null) return undefined;
  try {
    const session = JSON.parse(raw) as Partial<GrantedToken>;
    if (typeof session.token === 'string' && typeof session.expiresAt === 'number' && session.expiresAt > now) {
      return { token: session.token, expiresAt: session.expiresAt };
    }
  } catch {
    // A damaged entry is no session.
  }
  sessionStorage.removeItem(KEY);
  return undefined;
}

export function saveSession(session: GrantedToken): void {
  sessionStorage.setItem(KEY, JSON.stringify({ token: session.token, expiresAt: session.expiresAt }));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}
