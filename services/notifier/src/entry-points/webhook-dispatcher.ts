import { errorMessage, startWorkerLoop, untilRecorded, type Logger, type WorkerLoop } from '@platform/runtime';
import type { ClaimedWebhook, WebhookAttempt } from '@platform/accounts';
import { sendWebhook, type SendOptions, type WebhookOutcome } from '@platform/webhooks';
import type { WebhookDisabledReason } from '@platform/accounts';
import type { MailLinks } from '../domain/alert-email';
import type { NotifierStore, WebhookQueue } from '../domain/notifier-store';
import { webhookDisabledMail } from '../domain/webhook-disabled-email';
import { afterWebhookAttempt, disablingReason } from '../domain/webhook-retry';
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
  /** Runs the disabling of a webhook and its e-mail in one transaction. */
  inTransaction: NotifierStore['inTransaction'];
  /** What the e-mail that tells of a disabled webhook links to and is sent as. */
  mail: { links: MailLinks; mailFrom: string; queue: string };
  onMailQueued(): void;
  /** The time of an attempt, as the 5-day rule reads it (tests move it; default the system clock). */
  now?: () => number;
}

/**
 * Sends the balance-webhook queue (CONTRACT §6.1): each round claims due deliveries under a lease
 * (FOR UPDATE SKIP LOCKED: replicas never claim one row together), sends them, and marks each
 * delivered (a 2xx: never sent again), due again after an exponential backoff, or given up after
 * MAX_WEBHOOK_ATTEMPTS (over 24 h of retries). A `410 Gone`, or failures only for 5 days, disable
 * the webhook instead, with one e-mail to the account. Every attempt is listed for the account. The window
 * that remains (a delivery is recorded until Postgres takes it): a crash after the receiver's 2xx and before the mark resends it after the lease,
 * with the same `webhook-id`, which receivers deduplicate by (Standard Webhooks).
 */
export function startWebhookDispatcher(options: WebhookDispatcherOptions): WorkerLoop {
  const { queue, logger, metrics } = options;

  const now = options.now ?? Date.now;

  /**
   * Disables the webhook, lists the attempt that disabled it and queues its one e-mail, together
   * (whoever sees the webhook disabled also finds why in its attempts); false when another
   * attempt disabled it first.
   */
  const disable = (webhook: ClaimedWebhook, url: string, reason: WebhookDisabledReason, at: Date, made: WebhookAttempt): Promise<boolean> =>
    options.inTransaction(async (tx) => {
      if (!(await tx.disableWebhook(webhook.accountId, url, reason))) return false;
      await tx.recordWebhookAttempt({ ...made, error: made.error ?? `webhook disabled (${reason})`, nextRetryAt: undefined });
      const recipient = await tx.findRecipient(webhook.accountId);
      if (recipient) {
        const account = { id: webhook.accountId, email: recipient.accountEmail };
        await tx.enqueueMail(webhookDisabledMail({ ...options.mail, account, recipient: recipient.email, url, reason, disabledAt: at }));
      }
      return true;
    });

  /** A failed attempt: the webhook is still failing, or disabled now and the reason is answered (CONTRACT §6.1). */
  const afterFailure = async (
    webhook: ClaimedWebhook,
    outcome: WebhookOutcome,
    at: Date,
    made: WebhookAttempt,
  ): Promise<WebhookDisabledReason | undefined> => {
    const { url } = webhook;
    if (url === undefined) return undefined;
    const failingSince = await queue.markFailed(webhook.accountId, url, at);
    const reason = disablingReason(outcome, failingSince, at.getTime());
    if (reason === undefined || !(await disable(webhook, url, reason, at, made))) return undefined;
    options.onMailQueued();
    return reason;
  };

  const attempt = async (webhook: ClaimedWebhook, signal: AbortSignal): Promise<void> => {
    const outcome: WebhookOutcome =
      webhook.url === undefined || webhook.secret === undefined
        ? { delivered: false, status: undefined, error: 'webhook removed or disabled' }
        : await sendWebhook(
            { url: webhook.url, secret: webhook.secret, id: webhook.webhookId, timestamp: new Date(), body: webhook.body },
            options.send,
          );
    const at = new Date(now());
    const after = afterWebhookAttempt(
      webhook,
      outcome.delivered,
      { initialMs: options.retryInitialMs, maxMs: options.retryMaxMs },
      at.getTime(),
    );
    const made: WebhookAttempt = {
      accountId: webhook.accountId,
      webhookId: webhook.webhookId,
      type: webhook.type,
      status: outcome.status,
      error: outcome.error,
      nextRetryAt: after.nextAttemptAt,
      // A retry is listed only while the webhook is still enabled at this URL (another attempt may disable it meanwhile).
      url: webhook.url,
    };
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
    const { url } = webhook;
    if (outcome.delivered && url !== undefined) await record(() => queue.markDelivered(webhook.accountId, url));
    // The attempt that disables the webhook is listed by the disabling, in its transaction.
    const disabled = outcome.delivered ? undefined : await afterFailure(webhook, outcome, at, made);
    // A disabled webhook gets no more attempts, this event's included.
    const { result, nextAttemptAt } = disabled ? { result: 'disabled' as const, nextAttemptAt: undefined } : after;
    if (!disabled) await record(() => queue.recordAttempt(made));
    // Listed first, then marked: whoever sees the delivery marked also finds its attempt listed.
    await record(() => queue.finish(webhook.id, { delivered: outcome.delivered, nextAttemptAt }));
    metrics.webhooks.inc({ result });
    const fields = { webhookId: webhook.webhookId, accountId: webhook.accountId, attempts: webhook.attempts, status: outcome.status };
    if (outcome.delivered) logger.info('webhook delivered', fields);
    else if (disabled) logger.warn('webhook disabled', { ...fields, reason: disabled, error: outcome.error });
    else logger.warn(result === 'failed' ? 'webhook not delivered, will retry' : 'webhook given up', { ...fields, error: outcome.error });
  };

  // Up to `batch` deliveries in flight, each on its own: a slot freed by one (a fast receiver) is
  // filled at once, so a slow receiver delays no other delivery (issue 45).
  const capacity = options.batch ?? 10;
  const inFlight = new Map<ClaimedWebhook['id'], Promise<void>>();
  const loop = startWorkerLoop({
    name: 'webhook dispatcher',
    pollMs: options.pollMs,
    backoff: { initialMs: options.pollMs, maxMs: options.pollMs },
    logger,
    work: async (signal) => {
      if (inFlight.size >= capacity) {
        await Promise.race(inFlight.values());
        return true;
      }
      // Not those in flight here: a lease may run out while a 2xx waits for Postgres to record it,
      // and sending it again would deliver it twice (CONTRACT §6.1).
      const claimed = await queue.claimDue(capacity - inFlight.size, options.leaseMs, [...inFlight.keys()]);
      for (const webhook of claimed) {
        const sending: Promise<void> = attempt(webhook, signal)
          .catch((error: unknown) => {
            logger.warn('webhook queue unavailable, will retry', { error: errorMessage(error) });
          })
          .finally(() => {
            inFlight.delete(webhook.id);
            loop.wake();
          });
        inFlight.set(webhook.id, sending);
      }
      return claimed.length > 0;
    },
    failure: (error) => ({
      message: 'webhook queue unavailable, will retry',
      fields: { error: errorMessage(error) },
    }),
  });
  return {
    wake: () => loop.wake(),
    async stop() {
      await loop.stop();
      await Promise.all(inFlight.values());
    },
  };
}
