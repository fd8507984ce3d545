/**
 * Refusal reasons (CONTRACT §2, extension): why a 401, 403 or 429 was answered, in the
 * `X-Refusal-Reason` header, the Bearer challenge's `error_description` and the request's log
 * line. The body keeps the contract's sentence (real clients depend on it). A reason says no
 * more than the presented credential's own state: never an account id, e-mail or balance.
 */
export const REFUSAL_REASONS = [
  /** No key, token or admin token was sent. */
  'missing_credential',
  /** A key or token the service does not know as current (unknown, expired, revoked, a token of a replaced key). */
  'invalid_credential',
  /** An API key that belonged to an account and was replaced by a rotation. */
  'key_replaced',
  /** The account is disabled by an operator. */
  'account_disabled',
  /** Every pool of the account is at 0 (token issuance). */
  'no_credits',
  /** The usage API's 403: the product's pool holds fewer credits than asked. */
  'pool_exhausted',
  /** A 429 (issuance window or failure limit). */
  'rate_limited',
  /** An admin route with a missing or wrong admin token. */
  'wrong_admin_token',
  /** An admin write with a read-only (`support`) token (CONTRACT §7, roles). */
  'read_only_admin',
] as const;

export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** The response header that carries the reason. */
export const REFUSAL_HEADER = 'X-Refusal-Reason';

/**
 * With `key_replaced`, when the presented key was replaced (RFC 3339, UTC), so that a customer
 * reads "This key was replaced on …". An extension beyond CONTRACT §2, which is silent on it: the
 * Bearer challenge's `error_description` stays the bare reason, as the contract writes it. Like
 * the reason, it tells only the presented credential's own state.
 */
export const KEY_REPLACED_AT_HEADER = 'X-Key-Replaced-At';

/** What a refusal's deferred lookup found (AppErrorOptions.explain): the reason, and for a replaced key when. */
export interface RefusalFinding {
  reason: RefusalReason;
  /** When the key was replaced (key_replaced only). */
  replacedAt?: Date | undefined;
}

const KNOWN: ReadonlySet<string> = new Set(REFUSAL_REASONS);

/** True for one of the contract's reasons (a header read from another service is checked before it is passed on). */
export function isRefusalReason(value: unknown): value is RefusalReason {
  return typeof value === 'string' && KNOWN.has(value);
}

/** The statuses that carry a reason. */
export function isRefusalStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 429;
}
