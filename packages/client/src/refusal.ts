/**
 * Why the platform refused a call (its `X-Refusal-Reason`), as a sentence a person can act on.
 * The platform's body keeps one sentence for every 401 and 403 ("Access restricted…"), so that
 * older clients keep working; the reason tells the cases apart.
 */
export const REFUSAL_SENTENCES: Readonly<Record<string, string>> = {
  missing_credential: 'No API key or token was sent: set the API key.',
  invalid_credential: 'This key or token is not known (or no longer valid): check that you copied all of it.',
  key_replaced: 'This key was replaced: use the new key.',
  account_disabled: 'This account is disabled: contact support.',
  no_credits: 'Every credit pool of this account is at 0: buy credits to get a token.',
  pool_exhausted: "This product's credits are used up: buy credits.",
  rate_limited: 'Too many requests: try again later.',
  wrong_admin_token: 'Wrong admin token.',
  read_only_admin: 'This admin token may only read.',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const twoDigits = (value: number): string => String(value).padStart(2, '0');

/** An instant as people read it, the same in every runtime and locale: `6 Dec 2026, 08:57 UTC`. */
export function refusalTime(iso: string): string {
  const at = new Date(iso);
  const day = `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()] ?? ''} ${at.getUTCFullYear()}`;
  return `${day}, ${twoDigits(at.getUTCHours())}:${twoDigits(at.getUTCMinutes())} UTC`;
}

/**
 * The sentence for a reason, or undefined for no reason or one this client does not know. A
 * replaced key's sentence names when, if the answer said (`replacedAt`, its X-Key-Replaced-At).
 */
export function refusalSentence(reason: string | undefined, replacedAt?: string): string | undefined {
  if (reason === 'key_replaced' && replacedAt !== undefined) return `This key was replaced on ${refusalTime(replacedAt)}: use the new key.`;
  return reason === undefined || !Object.hasOwn(REFUSAL_SENTENCES, reason) ? undefined : REFUSAL_SENTENCES[reason];
}

/** What an answer says about its refusal: its reason, and for a replaced key when. */
export interface RefusalHeaders {
  reason?: string | undefined;
  /** X-Key-Replaced-At, when it is a time. */
  replacedAt?: string | undefined;
}

/** The reason (refusalReasonOf) and a replaced key's time of an answer. */
export function refusalOf(headers: Headers): RefusalHeaders {
  const replacedAt = headers.get('x-key-replaced-at');
  const reason = refusalReasonOf(headers);
  return replacedAt !== null && Number.isFinite(Date.parse(replacedAt)) ? { reason, replacedAt } : { reason };
}

/**
 * The reason of an answer: `X-Refusal-Reason`, else the `error_description` of a Bearer challenge
 * (the only place a browser can read it cross-origin: the header is not exposed to scripts).
 */
export function refusalReasonOf(headers: Headers): string | undefined {
  const header = headers.get('x-refusal-reason');
  if (header !== null && header !== '') return header;
  return /error_description="([a-z_]+)"/.exec(headers.get('www-authenticate') ?? '')?.[1];
}
