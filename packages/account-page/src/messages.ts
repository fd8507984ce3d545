import { refusalSentence, refusalTime, type ApiError } from '@platform/client';

/** What the page was doing when a call failed; each action explains a refusal in its own words. */
export type Action = 'sign-in' | 'load' | 'save-alerts' | 'save-webhook' | 'test-webhook' | 'rotate' | 'sign-out';

export const SESSION_ENDED =
  'Your session has ended: it expired, you signed out in another tab, or the API key was replaced. Sign in again with your API key.';

function waitSentence(error: ApiError): string {
  const seconds = (error as ApiError & { retryAfterSeconds?: number }).retryAfterSeconds;
  return seconds === undefined
    ? 'Too many attempts. Wait a minute, then try again.'
    : `Too many attempts. Try again in ${seconds} seconds.`;
}

function supportSuffix(error: ApiError): string {
  return error.requestId === undefined ? '' : ` If it keeps happening, contact support and quote request ${error.requestId}.`;
}

const REFUSED: Partial<Record<Action, Record<number, string>>> = {
  'sign-in': {
    401: 'That API key was not accepted. Check that you copied all of it; a replaced key no longer works.',
  },
  rotate: {
    400: 'That is not the current API key of an account: it may have been replaced already. Check it and try again.',
    422: 'That does not look like an API key. A key starts with at_ and has 32 characters.',
  },
};

/**
 * A refusal or failure of the API as a sentence a customer can act on, never as JSON. A 401
 * outside sign-in means the session's token no longer works.
 */
export function describeFailure(error: ApiError, action: Action): string {
  const refused = refusalText(error);
  if (refused !== undefined) return refused;
  const specific = REFUSED[action]?.[error.status];
  if (specific !== undefined) return specific;
  if (error.status === 0) return 'The service could not be reached. Check your connection, then try again.';
  if (error.status === 401 || error.status === 403) return SESSION_ENDED;
  if (error.status === 429) return waitSentence(error);
  if (error.status === 503) return `The service is busy or under maintenance. Try again in a moment.${supportSuffix(error)}`;
  if (error.status === 422 && typeof error.messages !== 'string') return Object.keys(error.messages).map(fieldSentence).join(' ');
  if (error.status >= 500) return `Something went wrong on our side. Try again in a moment.${supportSuffix(error)}`;
  return `The request was refused (${typeof error.messages === 'string' ? error.messages : 'invalid input'}).${supportSuffix(error)}`;
}

/**
 * The sentence for a refusal whose reason tells more than "access restricted" (CONTRACT §2): a
 * disabled account is not told to re-copy its key, a replaced key is told so. Other reasons
 * (unknown key, expired session) keep the page's own sentences.
 */
const TOLD_BY_REASON = new Set(['account_disabled', 'key_replaced', 'no_credits', 'read_only_admin']);

export function refusalText(error: ApiError): string | undefined {
  if (error.reason === undefined || !TOLD_BY_REASON.has(error.reason)) return undefined;
  if (error.reason === 'key_replaced')
    return `This key was replaced ${error.replacedAt === undefined ? 'by a newer one' : `on ${refusalTime(error.replacedAt)}`}: sign in with the new key. If nobody on your side replaced it, contact support.`;
  return refusalSentence(error.reason);
}

/** What the page says when its session stops working: the reason's sentence when there is one. */
export function sessionEndedText(error: unknown): string {
  return (error instanceof Error && 'reason' in error ? refusalText(error as ApiError) : undefined) ?? SESSION_ENDED;
}

/** What a customer should do about each field the API refused, in the page's words (never the API's raw text). */
const FIELD_SENTENCES: Record<string, string> = {
  'lowBalanceAlert.threshold': 'Enter the threshold as a whole number of credits from 0 to 1,000,000,000, without spaces or separators.',
  'lowBalanceAlert.enabled': 'Choose whether low-balance e-mails are on.',
  'zeroBalanceAlert.enabled': 'Choose whether zero-balance e-mails are on.',
  email: 'Enter one e-mail address, such as alerts@example.com.',
  'webhook.url': 'Use an https:// address on the public internet (not a private, local or reserved address).',
};

function fieldSentence(field: string): string {
  return FIELD_SENTENCES[field] ?? 'Check the values you entered and try again.';
}

/** The 422 refusal of one field as a sentence, for showing next to it (empty when that field was not refused). */
export function fieldMessages(error: ApiError, field: string): string[] {
  return error.status === 422 && error.fieldMessages(field).length > 0 ? [fieldSentence(field)] : [];
}

/** `1234567` → `1,234,567`. */
export function formatCredits(credits: number): string {
  return credits.toLocaleString('en-US');
}
