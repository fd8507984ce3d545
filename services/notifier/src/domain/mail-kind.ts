import type { AlertKind } from './alert-rules';

/**
 * Every kind of e-mail the notifier sends, one branch each: the balance alerts (CONTRACT §6) and
 * the notice that a balance webhook was disabled (§6.1, webhook-disabled-email.ts). The outbox's
 * `kind` column, the `X-Alert-Kind` header and the e-mail metric's label carry it.
 */
export type MailKind = AlertKind | 'webhook-disabled';
