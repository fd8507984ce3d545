import { PoisonMessageError, type BalanceChanged } from '@platform/events';
import { alertMessageId, renderAlertEmail, type MailLinks } from './alert-email';
import { decideAlerts, type AlertKind } from './alert-rules';
import { crossingWebhooks } from './crossing-webhooks';
import type { NotifierStore } from './notifier-store';

export interface BalanceChangeOptions {
  mailFrom: string;
  /** The event queue the change came from (partition of the mail outbox). */
  queue: string;
  /** How the e-mails name the product and where they send the customer. */
  mail: MailLinks;
}

export type BalanceChangeOutcome = { result: 'duplicate' } | { result: 'processed'; alerts: AlertKind[]; webhooks: number };

/**
 * One balance.changed event in one transaction: record the event id (a second delivery stops
 * here), apply the alert rules to the change, and queue the webhooks and e-mails they decide. An unknown product or account is a poison message (never retried).
 */
export function handleBalanceChange(
  store: Pick<NotifierStore, 'inTransaction'>,
  event: BalanceChanged,
  options: BalanceChangeOptions,
): Promise<BalanceChangeOutcome> {
  return store.inTransaction(async (tx) => {
    const pool = await tx.findPool(event.productId);
    if (!pool) throw new PoisonMessageError(`unknown product ${event.productId}`);
    if (!(await tx.markProcessed(event.id, event.accountId, pool.poolId))) return { result: 'duplicate' };
    const recipient = await tx.findRecipient(event.accountId);
    if (!recipient) throw new PoisonMessageError(`unknown account ${event.accountId}`);
    const decision = decideAlerts(recipient.settings, event);
    const webhooks = crossingWebhooks({
      event,
      pool,
      threshold: recipient.settings.threshold,
      webhookEnabled: recipient.webhookEnabled,
      crossings: decision.crossings,
    });
    for (const webhook of webhooks) await tx.enqueueWebhook(webhook);
    for (const kind of decision.alerts) {
      const mail = renderAlertEmail({
        kind,
        productName: pool.productName,
        poolProducts: pool.products,
        credits: event.credits,
        threshold: recipient.settings.threshold,
        account: { id: event.accountId, email: recipient.accountEmail },
        ...options.mail,
      });
      await tx.enqueueMail({
        queue: options.queue,
        messageId: alertMessageId(kind, event.id, options.mailFrom),
        eventId: event.id,
        accountId: event.accountId,
        poolId: pool.poolId,
        kind,
        recipient: recipient.email,
        ...mail,
      });
    }
    return { result: 'processed', alerts: decision.alerts, webhooks: webhooks.length };
  });
}
