import { MAX_WEBHOOK_ATTEMPTS, webhookRetryDelayMs } from '@platform/webhooks';
import type { WebhookDisabledReason } from '@platform/accounts';

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

/** A webhook whose deliveries have all failed for this long is disabled (CONTRACT §6.1). */
export const WEBHOOK_FAILING_LIMIT_MS = 5 * 24 * 3600_000;

/**
 * Whether an attempt disables the webhook (CONTRACT §6.1, Standard Webhooks): a `410 Gone` at
 * once; any other failure once the webhook has failed, with no delivery in between, since
 * `failingSince` for WEBHOOK_FAILING_LIMIT_MS.
 */
export function disablingReason(
  outcome: { delivered: boolean; status: number | undefined },
  failingSince: Date | undefined,
  now: number,
): WebhookDisabledReason | undefined {
  if (outcome.delivered) return undefined;
  if (outcome.status === 410) return 'gone';
  if (failingSince !== undefined && now - failingSince.getTime() >= WEBHOOK_FAILING_LIMIT_MS) return 'failing';
  return undefined;
}
