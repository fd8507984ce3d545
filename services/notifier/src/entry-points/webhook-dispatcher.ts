import { errorMessage, startWorkerLoop, untilRecorded, type Logger, type WorkerLoop } from '@platform/runtime';
import type { ClaimedWebhook } from '@platform/accounts';
import { sendWebhook, type SendOptions, type WebhookOutcome } from '@platform/webhooks';
import type { WebhookQueue } from '../domain/notifier-store';
import { afterWebhookAttempt } from '../domain/webhook-retry';
import type { NotifierMetrics } from '../metrics';

export interface WebhookDispatcherOptions {
  queue: WebhookQueue;
  logger: Logger;
  metrics: NotifierMetrics;
  /** The sender's rules (WEBHOOK_ALLOW_INSECURE) and, in tests, the CA of a self-signed receiver. */
  send: SendOptions;
  pollMs: number;
  leaseMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  /** Deliveries claimed per round (sent concurrently). */
  batch?: number;
}

/**
 * Sends the balance-webhook queue (CONTRACT §6.1): each round claims due deliveries under a lease
 * (FOR UPDATE SKIP LOCKED: replicas never claim one row together), sends them, and marks each
 * delivered (a 2xx: never sent again), due again after an exponential backoff, or given up after
 * MAX_WEBHOOK_ATTEMPTS (over 24 h of retries). Every attempt is listed for the account. The window
 * that remains (a delivery is recorded until Postgres takes it): a crash after the receiver's 2xx and before the mark resends it after the lease,
 * with the same `webhook-id`, which receivers deduplicate by (Standard Webhooks).
 */
export function startWebhookDispatcher(options: WebhookDispatcherOptions): WorkerLoop {
  const { queue, logger, metrics } = options;

  const attempt = async (webhook: ClaimedWebhook, signal: AbortSignal): Promise<void> => {
    const outcome: WebhookOutcome =
      webhook.url === undefined || webhook.secret === undefined
        ? { delivered: false, status: undefined, error: 'webhook removed or disabled' }
        : await sendWebhook(
            { url: webhook.url, secret: webhook.secret, id: webhook.webhookId, timestamp: new Date(), body: webhook.body },
            options.send,
          );
    const { result, nextAttemptAt } = afterWebhookAttempt(
      webhook,
      outcome.delivered,
      { initialMs: options.retryInitialMs, maxMs: options.retryMaxMs },
      Date.now(),
    );
    // A delivered webhook is recorded until Postgres takes it: given up, it would be sent again
    // once its lease ran out. Any other outcome is tried again anyway.
    const record = (write: () => Promise<void>): Promise<void> =>
      outcome.delivered
        ? untilRecorded(write, {
            what: 'webhook delivery recorded',
            everyMs: options.pollMs,
            signal,
            logger,
            fields: { webhookId: webhook.webhookId },
          })
        : write();
    await record(() =>
      queue.recordAttempt({
        accountId: webhook.accountId,
        webhookId: webhook.webhookId,
        type: webhook.type,
        status: outcome.status,
        error: outcome.error,
        nextRetryAt: nextAttemptAt,
      }),
    );
    // Listed first, then marked: whoever sees the delivery marked also finds its attempt listed.
    await record(() => queue.finish(webhook.id, { delivered: outcome.delivered, nextAttemptAt }));
    metrics.webhooks.inc({ result });
    const fields = { webhookId: webhook.webhookId, accountId: webhook.accountId, attempts: webhook.attempts, status: outcome.status };
    if (outcome.delivered) logger.info('webhook delivered', fields);
    else logger.warn(result === 'failed' ? 'webhook not delivered, will retry' : 'webhook given up', { ...fields, error: outcome.error });
  };

  return startWorkerLoop({
    name: 'webhook dispatcher',
    pollMs: options.pollMs,
    backoff: { initialMs: options.pollMs, maxMs: options.pollMs },
    logger,
    work: async (signal) => {
      const claimed = await queue.claimDue(options.batch ?? 10, options.leaseMs);
      await Promise.all(claimed.map((webhook) => attempt(webhook, signal)));
      return claimed.length > 0;
    },
    failure: (error) => ({
      message: 'webhook queue unavailable, will retry',
      fields: { error: errorMessage(error) },
    }),
  });
}
