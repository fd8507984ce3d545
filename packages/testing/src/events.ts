import { randomUUID } from 'node:crypto';
import { BALANCE_CHANGED, type BalanceChanged } from '@platform/events';

/** A valid balance.changed event (a one-credit debit of account 1's lookup pool) with the overrides applied. */
export function aBalanceChange(overrides: Partial<BalanceChanged> = {}): BalanceChanged {
  return {
    id: randomUUID(),
    type: BALANCE_CHANGED,
    accountId: 1,
    productId: 1,
    previousCredits: 20,
    credits: 19,
    cause: 'usage',
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}
