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

/** The sentence for a reason, or undefined for no reason or one this client does not know. */
export function refusalSentence(reason: string | undefined): string | undefined {
  return reason === undefined || !Object.hasOwn(REFUSAL_SENTENCES, reason) ? undefined : REFUSAL_SENTENCES[reason];
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
