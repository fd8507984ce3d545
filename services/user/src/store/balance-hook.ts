import type { AccountChange } from '../domain/account-change';
import { accessEffectOf } from '../domain/account-change';
import type { AccountBalances, BalanceCommitHook } from '../domain/balance-commit-hook';
import { accessEffects, writeAccessEffect, type AccessRecordsDeps } from './access-records';

/** A usage batch's pool changes as account changes (their ledger rows are written by the batch). */
const changesOf = (accounts: readonly AccountBalances[]): AccountChange[] =>
  accounts.flatMap(({ pools }) => pools.map((pool): AccountChange => ({ kind: 'credits', ...pool, entries: [] })));

/**
 * The usage batches' side effects (BalanceCommitHook), by the one rule of every account change
 * (accessEffectOf, written by writeAccessEffect): a pool a batch took to 0 loses its credit bit
 * before the debits answer (a Redis failure fails the batch: 503, rolled back), and the relay is
 * woken after the commit. A batch whose changes neither close nor open needs no transaction.
 */
export function accessRecordsBalanceHook(access: AccessRecordsDeps): BalanceCommitHook {
  return {
    needsTransaction: (accounts) => changesOf(accounts).some((change) => accessEffectOf(change) !== 'none'),
    committedAlone(accounts) {
      // Its events are committed: the relay publishes them now rather than at its next poll.
      if (accounts.some(({ pools }) => pools.some((pool) => pool.previousCredits !== pool.credits))) access.wake();
      return Promise.resolve();
    },
    begin() {
      const effects = accessEffects(access);
      return {
        async beforeCommit(accounts, reads) {
          for (const change of changesOf(accounts)) {
            await writeAccessEffect(access, effects, change, {
              activeKeys: (accountId) => reads.activeKeys(accountId),
              // Debits only take credits: a usage batch never opens access.
              grant: () => Promise.reject(new Error('a usage batch cannot open access')),
            });
          }
        },
        afterCommit: () => effects.committed(),
        afterRollback: () => effects.rolledBack(),
      };
    },
  };
}
