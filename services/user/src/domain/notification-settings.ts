import { invalidMessage, type FieldMessages } from '@platform/wire';
import { readInteger } from './integer-field';
import type { NotificationSettings, NotificationSettingsPatch, UserQueries } from './user-store';

export const MAX_THRESHOLD = 1_000_000_000;

function section(body: Record<string, unknown>, name: string, errors: FieldMessages): Record<string, unknown> | undefined {
  const value = body[name];
  // A JSON null section counts as not given (CONTRACT §9).
  if (!Object.hasOwn(body, name) || value === undefined || value === null) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  errors[name] = [invalidMessage(name)];
  return undefined;
}

function readBoolean(container: Record<string, unknown>, name: string, field: string, errors: FieldMessages): boolean | undefined {
  const value = container[name];
  // A JSON null counts as not given (CONTRACT §9); only `threshold: null` is an error.
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  errors[field] = [invalidMessage(field)];
  return undefined;
}

function readThreshold(container: Record<string, unknown>, errors: FieldMessages): number | undefined {
  if (!Object.hasOwn(container, 'threshold')) return undefined;
  const field = 'lowBalanceAlert.threshold';
  const raw = container.threshold;
  // `threshold: null` would unset a required setting: 422, not "not given" (CONTRACT §9).
  const parsed = raw === null || raw === '' ? ({ kind: 'invalid' } as const) : readInteger(raw, { min: 0, max: MAX_THRESHOLD });
  if (parsed.kind === 'value') return parsed.value;
  errors[field] = [invalidMessage(field)];
  return undefined;
}

/**
 * The change a POST asks for: any nested subset of the settings document (CONTRACT §6, §9).
 * Members it does not name are kept; problems are reported in `errors` under dotted names.
 */
export function parseSettingsPatch(body: Record<string, unknown>, errors: FieldMessages): NotificationSettingsPatch {
  const patch: NotificationSettingsPatch = {};
  const low = section(body, 'lowBalanceAlert', errors);
  if (low) {
    const enabled = readBoolean(low, 'enabled', 'lowBalanceAlert.enabled', errors);
    if (enabled !== undefined) patch.lowBalanceEnabled = enabled;
    const threshold = readThreshold(low, errors);
    if (threshold !== undefined) patch.lowBalanceThreshold = threshold;
  }
  const zero = section(body, 'zeroBalanceAlert', errors);
  if (zero) {
    const enabled = readBoolean(zero, 'enabled', 'zeroBalanceAlert.enabled', errors);
    if (enabled !== undefined) patch.zeroBalanceEnabled = enabled;
  }
  return patch;
}

/** Applies the patch (an empty one changes nothing) and answers the whole document. */
export async function changeNotificationSettings(
  store: UserQueries,
  accountId: number,
  patch: NotificationSettingsPatch,
): Promise<NotificationSettings> {
  if (Object.keys(patch).length === 0) return store.readNotificationSettings(accountId);
  return store.updateNotificationSettings(accountId, patch);
}
