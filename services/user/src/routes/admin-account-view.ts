/** What `GET /admin/v1/accounts/{id}` answers (CONTRACT §7): the account, its balances, its notification settings and last webhook deliveries. */
import { z } from 'zod';
import type { NotificationSettings } from '../domain/settings';
import type { AccountRecord, ProductBalance } from '../domain/user-store';
import type { WebhookAttemptView } from '../domain/webhooks';
import { balanceItemView } from './balance-view';
import { BalanceItem } from './schemas';
import { webhookAttemptView, WebhookAttempt } from './webhook-deliveries.routes';

/** The deliveries the operator sees on an account: the latest few (the customer's list holds 50). */
export const ADMIN_LISTED_ATTEMPTS = 10;

const AdminNotifications = z
  .object({
    email: z.string().openapi({ description: "Where alert e-mails go (the account's e-mail unless set)." }),
    lowBalanceAlert: z.object({ enabled: z.boolean(), threshold: z.number().int() }),
    zeroBalanceAlert: z.object({ enabled: z.boolean() }),
    webhook: z
      .object({
        url: z.string(),
        enabled: z.boolean(),
        disabledReason: z
          .enum(['gone', 'failing'])
          .optional()
          .openapi({ description: 'Why the platform turned it off (410 Gone, or 5 days of failures), CONTRACT §6.1.' }),
      })
      .nullable()
      .openapi({ description: 'The balance webhook (never its secret), or null.' }),
  })
  .openapi('AdminNotificationSettings');

export const AdminAccount = z
  .object({
    id: z.number().int(),
    email: z.string(),
    createdAt: z.string(),
    disabled: z.boolean(),
    balances: z.array(BalanceItem),
    notifications: AdminNotifications,
    webhookDeliveries: z
      .array(WebhookAttempt)
      .openapi({ description: `The last ${ADMIN_LISTED_ATTEMPTS} delivery attempts, newest first.` }),
  })
  .openapi('AdminAccount');

export interface AdminAccountParts {
  account: AccountRecord;
  balances: ProductBalance[];
  settings: NotificationSettings;
  attempts: WebhookAttemptView[];
}

export function adminAccountView({ account, balances, settings, attempts }: AdminAccountParts): z.output<typeof AdminAccount> {
  const { webhook } = settings;
  return {
    id: account.id,
    email: account.email,
    createdAt: account.createdAt.toISOString(),
    disabled: account.disabled,
    balances: balances.map(balanceItemView),
    // Named member by member: the secret never reaches this answer, whatever the store adds.
    notifications: {
      email: settings.email,
      lowBalanceAlert: { enabled: settings.lowBalanceAlert.enabled, threshold: settings.lowBalanceAlert.threshold },
      zeroBalanceAlert: { enabled: settings.zeroBalanceAlert.enabled },
      webhook:
        webhook === null
          ? null
          : {
              url: webhook.url,
              enabled: webhook.enabled,
              ...(webhook.disabledReason === undefined ? {} : { disabledReason: webhook.disabledReason }),
            },
    },
    webhookDeliveries: attempts.map(webhookAttemptView),
  };
}
