import type { Logger } from '@platform/runtime';
import { PoisonMessageError, type BalanceChanged, type EventHandler } from '@platform/events';
import { handleBalanceChange, type BalanceChangeOptions, type BalanceChangeOutcome } from '../domain/handle-balance-change';
import type { NotifierStore } from '../domain/notifier-store';
import type { NotifierMetrics } from '../metrics';
import { serialByKey } from './serial-by-key';

export interface BalanceChangedHandlerDeps extends BalanceChangeOptions {
  store: Pick<NotifierStore, 'inTransaction'>;
  logger: Logger;
  metrics: NotifierMetrics;
  /** Called after a commit that queued e-mails, to send them now rather than at the next poll. */
  onMailQueued: () => void;
  /** Called after a commit that queued webhooks. */
  onWebhookQueued: () => void;
}

/**
 * The balance.changed consumer: each event goes through handleBalanceChange (one transaction)
 * after the earlier changes of its pool. The message is acknowledged only after the commit, and
 * the e-mails are sent only after it, so a crash anywhere leads to a redelivery that changes
 * nothing or to a queued e-mail that is sent later, never to a lost or doubled alert.
 */
export function createBalanceChangedHandler(deps: BalanceChangedHandlerDeps): EventHandler<BalanceChanged> {
  const { logger, metrics } = deps;
  const serial = serialByKey();
  const options: BalanceChangeOptions = { mailFrom: deps.mailFrom, queue: deps.queue, mail: deps.mail };

  return async (event, delivery) => {
    let outcome: BalanceChangeOutcome;
    try {
      // One pool's changes in delivery order (= publication order on one queue); the state lock
      // alone would serialize them in arbitrary order.
      outcome = await serial(`${event.accountId}:${event.productId}`, () => handleBalanceChange(deps.store, event, options));
    } catch (error) {
      metrics.events.inc({ result: error instanceof PoisonMessageError ? 'poison' : 'failed' });
      throw error;
    }
    metrics.events.inc({ result: outcome.result });
    const context = { eventId: event.id, accountId: event.accountId, productId: event.productId, redelivered: delivery.redelivered };
    if (outcome.result === 'duplicate') {
      logger.info('balance event already handled', context);
      return;
    }
    if (outcome.alerts.length > 0) {
      logger.info('alerts queued', { ...context, alerts: outcome.alerts, credits: event.credits });
      deps.onMailQueued();
    }
    if (outcome.webhooks > 0) deps.onWebhookQueued();
  };
}
