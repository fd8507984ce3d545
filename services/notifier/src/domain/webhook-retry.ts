import { MAX_WEBHOOK_ATTEMPTS, webhookRetryDelayMs } from '@platform/webhooks';

export interface WebhookRetryPolicy {
  initialMs: number;
  maxMs: number;
}

export interface AfterWebhookAttempt {
  result: 'delivered' | 'failed' | 'given_up';
  /** When the next attempt is due; undefined when none will be made. */
  nextAttemptAt: Date | undefined;
}

/**
 * What follows one attempt at a balance webhook (CONTRACT §6.1): delivered (never sent again),
 * due again after an exponential backoff, or given up after MAX_WEBHOOK_ATTEMPTS or once the
 * webhook was removed or disabled (no URL to send to).
 */
export function afterWebhookAttempt(
  webhook: { url: string | undefined; attempts: number },
  delivered: boolean,
  policy: WebhookRetryPolicy,
  now: number,
): AfterWebhookAttempt {
  if (delivered) return { result: 'delivered', nextAttemptAt: undefined };
  const retry = webhook.url !== undefined && webhook.attempts < MAX_WEBHOOK_ATTEMPTS;
  if (!retry) return { result: 'given_up', nextAttemptAt: undefined };
  return { result: 'failed', nextAttemptAt: new Date(now + webhookRetryDelayMs(webhook.attempts, policy.initialMs, policy.maxMs)) };
}
