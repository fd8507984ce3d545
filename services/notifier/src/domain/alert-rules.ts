/**
 * Alert rules of CONTRACT §6, as a pure function of the alert state of one (account, pool),
 * the account's settings and one balance change.
 *
 * Alerts are edge-triggered: only a change that crosses a line sends anything. The state keeps
 * one "armed" flag per alert so that a crossing sends at most one e-mail even when the same
 * change arrives again under a new event id; a flag re-arms only when a change puts the pool
 * back on the safe side of its line. Events can arrive out of order (requeues, prefetch > 1):
 * the state remembers the newest change it has seen, and an older ("stale") change neither
 * re-arms nor alerts about a condition the newest change shows is over.
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

export interface AlertState {
  lowArmed: boolean;
  zeroArmed: boolean;
  /** occurredAt of the newest change applied, null before the first. */
  lastOccurredAt: Date | null;
  /** credits after the newest change applied. */
  lastCredits: number | null;
}

/** A pool nobody has alerted about yet: both alerts armed. */
export const INITIAL_STATE: AlertState = { lowArmed: true, zeroArmed: true, lastOccurredAt: null, lastCredits: null };

export interface BalanceChange {
  previousCredits: number;
  credits: number;
  occurredAt: Date;
}

export interface AlertDecision {
  /** E-mails to send for this change, at most one of each kind. */
  alerts: AlertKind[];
  /**
   * The crossings this change makes, whether or not their e-mails are on: the balance webhooks'
   * events (CONTRACT §6.1). `alerts` is these, less the alerts that are off.
   */
  crossings: AlertKind[];
  state: AlertState;
}

export function decideAlerts(state: AlertState, settings: AlertSettings, change: BalanceChange): AlertDecision {
  const { previousCredits, credits } = change;
  const stale = state.lastOccurredAt !== null && change.occurredAt.getTime() < state.lastOccurredAt.getTime();
  // What the pool holds now, as far as we know: a stale change says nothing about the present.
  const current = stale && state.lastCredits !== null ? state.lastCredits : credits;
  const next: AlertState = { ...state };
  const crossings: AlertKind[] = [];

  const crossedLow = previousCredits >= settings.threshold && credits < settings.threshold;
  if (crossedLow && current < settings.threshold) {
    // Disarmed also when the alert is off or the pool went straight to 0: the crossing is spent.
    if (next.lowArmed && credits > 0 && current > 0) crossings.push('low');
    next.lowArmed = false;
  }

  const reachedZero = previousCredits > 0 && credits === 0;
  if (reachedZero && current === 0) {
    if (next.zeroArmed) crossings.push('zero');
    next.zeroArmed = false;
  }
  const alerts = crossings.filter((kind) => (kind === 'low' ? settings.lowEnabled : settings.zeroEnabled));

  if (!stale) {
    if (credits >= settings.threshold) next.lowArmed = true;
    if (credits > 0) next.zeroArmed = true;
    next.lastOccurredAt = change.occurredAt;
    next.lastCredits = credits;
  }
  return { alerts, crossings, state: next };
}
