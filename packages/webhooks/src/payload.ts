/** The event types a webhook carries (CONTRACT §6.1). */
export type WebhookEventType = 'balance.low' | 'balance.zero' | 'webhook.test';

export interface BalanceWebhookData {
  accountId: number;
  productId: number;
  product: string;
  products: number[];
  previousCredits: number;
  credits: number;
  threshold: number;
}

/** The body of one webhook event: `{"type", "timestamp", "data"}`, serialized once and signed as such. */
export function webhookBody(type: WebhookEventType, timestamp: Date, data: BalanceWebhookData | { accountId: number }): string {
  return JSON.stringify({ type, timestamp: timestamp.toISOString(), data });
}

/**
 * When attempt `attempts` (1-based) failed, the next waits: 30 s doubling to 6 h, so that the
 * schedule spans more than 24 h before MAX_WEBHOOK_ATTEMPTS is spent (30 s … 6 h, then 6 h steps:
 * about 38 h in all).
 */
export function webhookRetryDelayMs(attempts: number, initialMs = 30_000, maxMs = 6 * 3600_000): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, attempts - 1));
}

/** Attempts before a delivery is given up (see webhookRetryDelayMs). */
export const MAX_WEBHOOK_ATTEMPTS = 16;
