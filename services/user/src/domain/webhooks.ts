import { randomUUID } from 'node:crypto';
import { invalidParams, requiredMessage } from '@platform/wire';
import { webhookBody, type WebhookOutcome, type WebhookRequest } from '@platform/webhooks';

/** One attempt as the deliveries list shows it (CONTRACT §6.1). */
export interface WebhookAttemptView {
  id: string;
  type: string;
  attemptedAt: Date;
  status: number | null;
  error: string | null;
  nextRetryAt: Date | null;
}

/** The webhook deliveries' ports: the account's target (with its secret) and its attempts. */
export interface WebhookStore {
  readTarget(accountId: number): Promise<{ url: string; secret: string } | undefined>;
  listAttempts(accountId: number, limit: number): Promise<WebhookAttemptView[]>;
  recordAttempt(accountId: number, attempt: { id: string; type: string; outcome: WebhookOutcome }): Promise<void>;
}

/** Sends one signed request (SSRF-safe: see @platform/webhooks). */
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookOutcome>;

export const LISTED_ATTEMPTS = 50;

export interface TestDelivery {
  id: string;
  type: 'webhook.test';
  delivered: boolean;
  status: number | null;
  error: string | null;
}

/**
 * `webhook.test` (CONTRACT §6.1): sent at once to the account's webhook (enabled or not), signed
 * like every event, answered with what came of it and listed with the other attempts. Not retried.
 */
export async function sendTestWebhook(deps: { store: WebhookStore; send: WebhookSender }, accountId: number): Promise<TestDelivery> {
  const target = await deps.store.readTarget(accountId);
  if (!target) throw invalidParams({ 'webhook.url': [requiredMessage('webhook.url')] });
  const id = `msg_test_${randomUUID()}`;
  const now = new Date();
  const outcome = await deps.send({
    url: target.url,
    secret: target.secret,
    id,
    timestamp: now,
    body: webhookBody('webhook.test', now, { accountId }),
  });
  await deps.store.recordAttempt(accountId, { id, type: 'webhook.test', outcome });
  return { id, type: 'webhook.test', delivered: outcome.delivered, status: outcome.status ?? null, error: outcome.error ?? null };
}
