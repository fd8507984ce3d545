import type pg from 'pg';
import { unavailable } from '@platform/kernel';
import { type Logger } from '@platform/runtime';
import { accessRecordsOf, activeKeysForUpdate, reconcileAccount } from '@platform/accounts';
import type { AccessWriter } from '@platform/credentials';
import type { Queryable } from '@platform/db';
import type { BalanceCommitHook } from '../domain/balance-commit-hook';
import type { AccessRecordWrites } from '../domain/user-store';
import type { AccessRecordsDeps } from './user-store';

/** What one transaction wrote to the access store, so that a failure can be undone. */
export interface AccessTouched {
  accounts: Set<number>;
  /** Keys whose records were written but that exist only if the transaction commits. */
  newKeys: Set<string>;
}

async function written(write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (error) {
    // Inside the transaction, before its commit: the change is rolled back and takes no effect.
    throw unavailable(error);
  }
}

/**
 * The user service's writes to the access store (CONTRACT §3), each made inside the transaction
 * that changes Postgres, after its SQL and before its commit, holding the account-row lock that
 * serializes it with every other writer and with reconciliation (access-reconciler.ts in @platform/accounts). A failed
 * write fails the transaction (503, nothing changed).
 */
export function accessRecordWrites(db: Queryable, access: AccessWriter, touched: AccessTouched): AccessRecordWrites {
  return {
    /** A new account's key: its record (the caller created the account row in this transaction). */
    async recordNewKey(accountId: number, keyHash: string): Promise<void> {
      touched.accounts.add(accountId);
      touched.newKeys.add(keyHash);
      await written(access.putKeys(await accessRecordsOf(db, [accountId])));
    },
    /**
     * A rotation (the caller holds the key and account rows FOR UPDATE and has replaced the key):
     * the old key's record goes first, so a failure in between revokes too much, never too little.
     */
    async recordReplacedKey(accountId: number, oldKeyHash: string, newKeyHash: string): Promise<void> {
      touched.accounts.add(accountId);
      touched.newKeys.add(newKeyHash);
      await written(access.deleteKeys([oldKeyHash]));
      // TOKEN_RATE_PER_ACCOUNT counts per account: the new key goes on in the old key's window.
      await written(access.carryIssuanceWindow(oldKeyHash, newKeyHash));
      await written(access.putKeys(await accessRecordsOf(db, [accountId])));
    },
    /** A pool reached 0 or left it (called after the pool's row was changed in this transaction). */
    async recordPoolCredit(accountId: number, poolId: number, credited: boolean): Promise<void> {
      touched.accounts.add(accountId);
      await written(access.setPoolCredit(await activeKeysForUpdate(db, accountId), poolId, credited));
    },
  };
}

/**
 * Undoes what a failed transaction wrote to the access store: the records of keys that never
 * came to be are removed, and each account touched is rewritten from what Postgres committed.
 * An account that cannot be repaired now (Redis or Postgres away) is tried again every few
 * seconds: until then its records are at worst more restrictive than Postgres (the writes that
 * open access are made only for keys and credits that exist once the commit succeeds).
 */
export function createAccessRepair(pool: pg.Pool, access: AccessWriter, logger: Logger, retryMs = 2000) {
  const pending = new Set<number>();
  let timer: NodeJS.Timeout | undefined;

  const repairAccount = async (accountId: number): Promise<void> => {
    try {
      await reconcileAccount(pool, access, accountId);
      pending.delete(accountId);
    } catch (error) {
      pending.add(accountId);
      logger.warn('access records not repaired yet', { accountId, error: error instanceof Error ? error.message : String(error) });
      schedule();
    }
  };

  function schedule(): void {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      for (const accountId of [...pending]) void repairAccount(accountId);
    }, retryMs);
    timer.unref();
  }

  return {
    async repair(touched: AccessTouched): Promise<void> {
      await access.deleteKeys([...touched.newKeys]).catch(() => undefined);
      for (const accountId of touched.accounts) await repairAccount(accountId);
    },
    stop(): void {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

export type AccessRepair = ReturnType<typeof createAccessRepair>;

/**
 * The usage batches' side of the access records (BalanceCommitHook): a pool that a batch took
 * from credits to 0 loses its credit bit in Redis inside the batch's transaction, before the
 * debits answer; a Redis failure fails the batch (503, rolled back). A batch that rolls back
 * after the write has its accounts rewritten from what Postgres committed.
 */
export function accessRecordsBalanceHook(access: AccessRecordsDeps): BalanceCommitHook {
  return {
    async beforeCommit(accounts, reads) {
      for (const { accountId, pools } of accounts) {
        for (const pool of pools) {
          if (pool.previousCredits > 0 && pool.credits === 0) {
            await written(access.writer.setPoolCredit(await reads.activeKeys(accountId), pool.poolId, false));
          }
        }
      }
    },
    async afterRollback(accounts) {
      await access.repair.repair({ accounts: new Set(accounts.map((account) => account.accountId)), newKeys: new Set() });
    },
  };
}

/** A transaction that undoes its access-store writes when it fails (see createAccessRepair). */
export async function withAccessRepair<T>(repair: AccessRepair, run: (touched: AccessTouched) => Promise<T>): Promise<T> {
  const touched: AccessTouched = { accounts: new Set(), newKeys: new Set() };
  try {
    return await run(touched);
  } catch (error) {
    if (touched.accounts.size > 0 || touched.newKeys.size > 0) await repair.repair(touched);
    throw error;
  }
}
