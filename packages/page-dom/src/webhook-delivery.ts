/**
 * One balance-webhook delivery attempt as the user service lists it (`WebhookAttempt` in its
 * OpenAPI: the customer's `/user-service/webhook-deliveries` and the admin account view), and its
 * result in words: the account page and the operator console show the same list.
 */
export interface WebhookDelivery {
  /** `webhook-id`: the same for every attempt of one event. */
  id: string;
  type: string;
  attemptedAt: string;
  /** The receiver's status code, or null. */
  status: number | null;
  /** Why no status came (timeout, address not allowed, …), or null. */
  error: string | null;
  /** When the next attempt is due; null: none (delivered or given up). */
  nextRetryAt: string | null;
}

/** True when the receiver answered 2xx. */
export function delivered(attempt: Pick<WebhookDelivery, 'status'>): boolean {
  return attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
}

/** The attempt's result: `Delivered (204)`, `Answered 500`, `Not delivered: timeout`, `No answer`. */
export function deliveryOutcome(attempt: Pick<WebhookDelivery, 'status' | 'error'>): string {
  if (attempt.status !== null) return delivered(attempt) ? `Delivered (${attempt.status})` : `Answered ${attempt.status}`;
  return attempt.error === null ? 'No answer' : `Not delivered: ${attempt.error}`;
}
