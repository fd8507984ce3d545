/**
 * Alert rules of CONTRACT §6, as a pure function of the account's settings and one balance
 * change.
 *
 * Alerts are edge-triggered: only a change that crosses a line sends anything, and whether it
 * crosses is a property of the change itself (previousCredits → credits), never of what else
 * has arrived. Every change is exactly one event with its own id, written in the transaction
 * that makes the change (CONTRACT §6): the outbox relay republishes a row with the ids it was
 * written with, and a usage batch retried after an unknown commit finds its debits in the
 * ledger and changes nothing. So deduplicating by event id (notifier_processed_events) is
 * "exactly one e-mail per crossing", and the decision needs no state: events may arrive in any
 * order (several relay replicas, requeues, prefetch > 1) and each crossing still alerts once.
 */

export type AlertKind = 'low' | 'zero';

export interface AlertSettings {
  lowEnabled: boolean;
  /** Low-balance line: a change from ≥ threshold to < threshold (and > 0) alerts. */
  threshold: number;
  zeroEnabled: boolean;
}

/** The real defaults, used when the account has no settings row. */
export const DEFAULT_SETTINGS: AlertSettings = { lowEnabled: true, threshold: 10, zeroEnabled: true };

export interface BalanceChange {
  previousCredits: number;
  credits: number;
}

export interface AlertDecision {
  /** E-mails to send for this change, at most one of each kind. */
  alerts: AlertKind[];
  /**
   * The crossings this change makes, whether or not their e-mails are on: the balance webhooks'
   * events (CONTRACT §6.1). `alerts` is these, less the alerts that are off.
   */
  crossings: AlertKind[];
}

export function decideAlerts(settings: AlertSettings, change: BalanceChange): AlertDecision {
  const { previousCredits, credits } = change;
  const crossings: AlertKind[] = [];
  // A change straight to 0 is the zero crossing only.
  if (previousCredits >= settings.threshold && credits < settings.threshold && credits > 0) crossings.push('low');
  if (previousCredits > 0 && credits === 0) crossings.push('zero');
  const alerts = crossings.filter((kind) => (kind === 'low' ? settings.lowEnabled : settings.zeroEnabled));
  return { alerts, crossings };
}
