import { enqueueWebhook, type ProductPool } from '@platform/accounts';
import type { Queryable } from '@platform/db';
import type { BalanceChanged } from '@platform/events';
import { webhookBody } from '@platform/webhooks';
import type { AlertKind } from './domain/alert-rules';

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
 * Queues the balance webhooks (CONTRACT §6.1) of one change's crossings, in the transaction that
 * decided them: the event's id and the crossing make the `webhook-id`, so a crossing is queued
 * once however often its event arrives. The webhook dispatcher sends them.
 */
export async function queueCrossingWebhooks(db: Queryable, input: CrossingWebhooks): Promise<number> {
  if (!input.webhookEnabled) return 0;
  const { event, pool } = input;
  for (const kind of input.crossings) {
    const body = webhookBody(TYPES[kind], new Date(event.occurredAt), {
      accountId: event.accountId,
      productId: pool.poolId,
      product: pool.productName,
      products: pool.productIds,
      previousCredits: event.previousCredits,
      credits: event.credits,
      threshold: input.threshold,
    });
    await enqueueWebhook(db, { webhookId: `msg_${kind}_${event.id}`, accountId: event.accountId, type: TYPES[kind], body });
  }
  return input.crossings.length;
}
