import type { ProductPool, QueuedWebhook } from '@platform/accounts';
import type { BalanceChanged } from '@platform/events';
import { webhookBody } from '@platform/webhooks';
import type { AlertKind } from './alert-rules';

export interface CrossingWebhooks {
  event: BalanceChanged;
  pool: ProductPool;
  /** The account's low-balance line when the crossing was decided. */
  threshold: number;
  /** Whether the account has a webhook set and enabled. */
  webhookEnabled: boolean;
  crossings: readonly AlertKind[];
}

const TYPES: Record<AlertKind, 'balance.low' | 'balance.zero'> = { low: 'balance.low', zero: 'balance.zero' };

/**
 * The balance webhooks (CONTRACT §6.1) of one change's crossings, queued in the transaction that
 * decided them: the event's id and the crossing make the `webhook-id`, so a crossing is queued
 * once however often its event arrives. The webhook dispatcher sends them.
 */
export function crossingWebhooks(input: CrossingWebhooks): QueuedWebhook[] {
  if (!input.webhookEnabled) return [];
  const { event, pool } = input;
  return input.crossings.map((kind) => ({
    webhookId: `msg_${kind}_${event.id}`,
    accountId: event.accountId,
    type: TYPES[kind],
    body: webhookBody(TYPES[kind], new Date(event.occurredAt), {
      accountId: event.accountId,
      productId: pool.poolId,
      product: pool.productName,
      products: pool.productIds,
      previousCredits: event.previousCredits,
      credits: event.credits,
      threshold: input.threshold,
    }),
  }));
}
