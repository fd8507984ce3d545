import type pg from 'pg';
import type { Logger } from '@platform/runtime';
import { withTransaction } from '@platform/db';
import { PoisonMessageError, type BalanceChanged, type EventHandler } from '@platform/events';
import { alertMessageId, renderAlertEmail, type MailLinks } from './domain/alert-email';
import { decideAlerts, type AlertKind } from './domain/alert-rules';
import type { NotifierMetrics } from './metrics';
import { serialByKey } from './serial-by-key';
import { findPool, findRecipient, lockAlertState, markProcessed, saveAlertState } from './store/alert-store';
import { enqueueMail } from './store/mail-outbox';
import { queueCrossingWebhooks } from './webhook-events';

export interface BalanceChangedHandlerDeps {
  pool: pg.Pool;
  logger: Logger;
  metrics: NotifierMetrics;
  mailFrom: string;
  /** The event queue this handler consumes (partition of the mail outbox). */
  queue: string;
  /** Called after a commit that queued e-mails, to send them now rather than at the next poll. */
  onMailQueued: () => void;
  /** Called after a commit that queued webhooks. */
  onWebhookQueued: () => void;
  /** How the e-mails name the product and where they send the customer. */
  mail: MailLinks;
}

type Outcome = { result: 'duplicate' } | { result: 'processed'; alerts: AlertKind[]; webhooks: number };

/**
 * Handles one balance.changed event in one transaction: record the event id (a second
 * delivery stops here), apply the alert rules to the pool's locked alert state, and queue the
 * e-mails in the mail outbox. The message is acknowledged only after the commit, and the
 * e-mails are sent only after it, so a crash anywhere leads to a redelivery that changes nothing
 * or to a queued e-mail that is sent later, never to a lost or doubled alert.
 */
export function createBalanceChangedHandler(deps: BalanceChangedHandlerDeps): EventHandler<BalanceChanged> {
  const { logger, metrics } = deps;
  const serial = serialByKey();

  const apply = (event: BalanceChanged): Promise<Outcome> =>
    withTransaction(deps.pool, async (client) => {
      const pool = await findPool(client, event.productId);
      if (!pool) throw new PoisonMessageError(`unknown product ${event.productId}`);
      if (!(await markProcessed(client, event.id, event.accountId, pool.poolId))) return { result: 'duplicate' };
      const recipient = await findRecipient(client, event.accountId);
      if (!recipient) throw new PoisonMessageError(`unknown account ${event.accountId}`);
      const state = await lockAlertState(client, event.accountId, pool.poolId);
      const decision = decideAlerts(state, recipient.settings, {
        previousCredits: event.previousCredits,
        credits: event.credits,
        occurredAt: new Date(event.occurredAt),
      });
      await saveAlertState(client, event.accountId, pool.poolId, decision.state);
      const webhooks = await queueCrossingWebhooks(client, {
        event,
        pool,
        threshold: recipient.settings.threshold,
        webhookEnabled: recipient.webhookEnabled,
        crossings: decision.crossings,
      });
      for (const kind of decision.alerts) {
        const mail = renderAlertEmail({
          kind,
          productName: pool.productName,
          poolProducts: pool.products,
          credits: event.credits,
          threshold: recipient.settings.threshold,
          account: { id: event.accountId, email: recipient.accountEmail },
          ...deps.mail,
        });
        await enqueueMail(client, {
          queue: deps.queue,
          messageId: alertMessageId(kind, event.id, deps.mailFrom),
          eventId: event.id,
          accountId: event.accountId,
          poolId: pool.poolId,
          kind,
          recipient: recipient.email,
          ...mail,
        });
      }
      return { result: 'processed', alerts: decision.alerts, webhooks };
    });

  return async (event, delivery) => {
    let outcome: Outcome;
    try {
      // One pool's changes in delivery order (= publication order on one queue); the state lock
      // alone would serialize them in arbitrary order.
      outcome = await serial(`${event.accountId}:${event.productId}`, () => apply(event));
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
