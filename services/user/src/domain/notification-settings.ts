import { invalidMessage, invalidParams, requiredMessage } from '@platform/wire';
import { generateWebhookSecret } from '@platform/webhooks';
import type { NotificationSettings, NotificationSettingsPatch, StoredSettingsPatch, WebhookSetting } from './settings';
import type { UserStore } from './user-store';

export const MAX_THRESHOLD = 1_000_000_000;

const URL_FIELD = 'webhook.url';

/** The settings document as answered; `secret` only in the answer that set or changed the URL. */
export type SettingsAnswer = Omit<NotificationSettings, 'webhook'> & { webhook: (WebhookSetting & { secret?: string }) | null };

/** Whether a webhook URL may be used (CONTRACT §6.1: https, public addresses only, also after DNS). */
export type TargetCheck = (url: string) => Promise<boolean>;

/**
 * The webhook change as the store takes it: a new or changed URL is checked and gets a new
 * secret (shown once); `enabled` alone keeps URL and secret.
 */
async function webhookChange(
  current: WebhookSetting | null,
  change: NonNullable<NotificationSettingsPatch['webhook']>,
  allowed: TargetCheck,
): Promise<NonNullable<StoredSettingsPatch['webhook']>> {
  const url = change.url ?? current?.url;
  if (url === undefined) throw invalidParams({ [URL_FIELD]: [requiredMessage(URL_FIELD)] });
  const changed = url !== current?.url;
  if (changed && !(await allowed(url))) throw invalidParams({ [URL_FIELD]: [invalidMessage(URL_FIELD)] });
  // A webhook the service disabled is enabled again by setting it again (CONTRACT §6.1).
  const enabled = change.enabled ?? (current?.disabledReason === undefined ? current?.enabled : true) ?? true;
  return { url, enabled, secret: changed ? generateWebhookSecret() : undefined };
}

/**
 * Applies the patch (an empty one changes nothing) as a `settings` change of the account
 * transaction, and answers the whole document as written. The customer's own change: no audit row
 * (CONTRACT §7 audits admin writes and key rotations).
 */
export async function changeNotificationSettings(
  store: Pick<UserStore, 'readNotificationSettings' | 'accounts'>,
  accountId: number,
  patch: NotificationSettingsPatch,
  allowed: TargetCheck,
): Promise<SettingsAnswer> {
  if (Object.keys(patch).length === 0) return store.readNotificationSettings(accountId);
  const { webhook, ...rest } = patch;
  const stored: StoredSettingsPatch = { ...rest };
  if (webhook === null) stored.webhook = null;
  else if (webhook !== undefined) {
    stored.webhook = await webhookChange((await store.readNotificationSettings(accountId)).webhook, webhook, allowed);
  }
  const saved = await store.accounts.transaction('settings', async (tx) => {
    await tx.apply([{ kind: 'settings', accountId, patch: stored }]);
    return tx.readSettings(accountId);
  });
  const secret = stored.webhook?.secret;
  return secret !== undefined && saved.webhook ? { ...saved, webhook: { ...saved.webhook, secret } } : saved;
}
