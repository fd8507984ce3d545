/** An account's notification settings (CONTRACT §6, §6.1): the document, its patch, and the patch as written. */

/** The balance webhook as stored (CONTRACT §6.1); the secret never leaves the service but once. */
export interface WebhookSetting {
  url: string;
  enabled: boolean;
  /** Why the service disabled it (CONTRACT §6.1): a 410 Gone, or 5 days of failures; absent otherwise. */
  disabledReason?: 'gone' | 'failing';
}

export interface NotificationSettings {
  lowBalanceAlert: { enabled: boolean; threshold: number };
  zeroBalanceAlert: { enabled: boolean };
  /** Where alert e-mails go: the settings' address, else the account's. */
  email: string;
  webhook: WebhookSetting | null;
}

/** Fields to change; absent fields keep their stored (or default) value. */
export interface NotificationSettingsPatch {
  lowBalanceEnabled?: boolean;
  lowBalanceThreshold?: number;
  zeroBalanceEnabled?: boolean;
  /** null: back to the account's e-mail. */
  email?: string | null;
  /** null: removes the webhook; `url` and `enabled` change what they name. */
  webhook?: { url?: string; enabled?: boolean } | null;
}

/** The store's form of a patch: a webhook change is whole (its secret chosen by the domain). */
export type StoredSettingsPatch = Omit<NotificationSettingsPatch, 'webhook'> & {
  webhook?: (WebhookSetting & { secret: string | undefined }) | null;
};
