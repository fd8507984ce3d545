import type { NotificationSettings, NotificationSettingsPatch, UserQueries } from './user-store';

export const MAX_THRESHOLD = 1_000_000_000;

/** Applies the patch (an empty one changes nothing) and answers the whole document. */
export async function changeNotificationSettings(
  store: UserQueries,
  accountId: number,
  patch: NotificationSettingsPatch,
): Promise<NotificationSettings> {
  if (Object.keys(patch).length === 0) return store.readNotificationSettings(accountId);
  return store.updateNotificationSettings(accountId, patch);
}
