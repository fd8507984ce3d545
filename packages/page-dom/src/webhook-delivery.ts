/**
 * A balance-webhook delivery attempt's result in words, the same on the account page and in the
 * operator console (the attempt is `WebhookDelivery` of `@platform/client`, the API's own type).
 */
interface Attempt {
  /** The receiver's status code, or null. */
  status: number | null;
  /** Why no status came (timeout, address not allowed, …), or null. */
  error: string | null;
}

/** True when the receiver answered 2xx. */
export function delivered(attempt: Pick<Attempt, 'status'>): boolean {
  return attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
}

/** The attempt's result: `Delivered (204)`, `Answered 500`, `Not delivered: timeout`, `No answer`. */
export function deliveryOutcome(attempt: Attempt): string {
  if (attempt.status !== null) return delivered(attempt) ? `Delivered (${attempt.status})` : `Answered ${attempt.status}`;
  return attempt.error === null ? 'No answer' : `Not delivered: ${attempt.error}`;
}
