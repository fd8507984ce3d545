import type pg from 'pg';
import { unavailable } from '@platform/kernel';
import { startWorkerLoop, type Logger } from '@platform/runtime';
import { activeKeysForUpdate, reconcileAccount } from '@platform/accounts';
import type { AccessWriter } from '@platform/credentials';
import type { Queryable } from '@platform/db';
import type { BalanceCommitHook } from '../domain/balance-commit-hook';
import type { AccessRecordWrites } from '../domain/user-store';
import type { PausePoint } from '../pause-point';

/*
 * Redis follows Postgres, and is never more permissive than what Postgres has committed
 * (CONTRACT §3; docs/architecture.md, "Redis follows Postgres"). This file is the one place that
 * projects the user tables into the access store, by one rule:
 * - a write that CLOSES access (a replaced key's record deleted, a pool reaching 0) is made inside
 *   the transaction, after its SQL and before its COMMIT, holding the account-row lock; a failed
 *   write fails the transaction (503, nothing changed), and a transaction that fails after such a
 *   write has its accounts rewritten from what Postgres committed (createAccessRepair);
 * - a write that OPENS access (a new key, credits from 0) is never made before the COMMIT: the
 *   transaction records a pending grant (access_grants_pending) under the account's shared lock,
 *   and after the COMMIT the account's records are rewritten from Postgres and the grant row is
 *   deleted (createAccessGrants). A process killed in between leaves the row, and the grant
 *   sweeper (at start, then every ACCESS_GRANT_SWEEP_MS) finishes it: a restarted service
 *   converges to Postgres without a Redis restart.
 */

/** What one transaction did to the access store, for what must follow its end. */
export interface AccessTouched {
  /** Accounts whose records a closing write changed: rewritten from Postgres if the transaction fails. */
  accounts: Set<number>;
  /** Accounts granted more access by the transaction: their records are written once it has committed. */
  grants: Set<number>;
}

async function written(write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (error) {
    // Inside the transaction, before its commit: the change is rolled back and takes no effect.
    throw unavailable(error);
  }
}

// The same shared lock closing writes take (activeKeysForUpdate): the reconciliation that applies
// the grant (FOR NO KEY UPDATE) waits for this transaction, so it sees its commit and its row.
const LOCK_SHARED = 'SELECT 1 FROM accounts WHERE id = $1 FOR SHARE';
const RECORD_GRANT = 'INSERT INTO access_grants_pending (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING';
const SETTLE_GRANT = 'DELETE FROM access_grants_pending WHERE account_id = $1';
const PENDING_GRANTS = 'SELECT account_id FROM access_grants_pending ORDER BY account_id LIMIT $1';

/** Records, in the caller's transaction, that the account's access opens once it commits. */
async function recordGrant(db: Queryable, touched: AccessTouched, accountId: number): Promise<void> {
  await db.query(LOCK_SHARED, [accountId]);
  await db.query(RECORD_GRANT, [accountId]);
  touched.grants.add(accountId);
}

/** The access-store side of the user service's transactions (AccessRecordWrites), by the rule above. */
export function accessRecordWrites(db: Queryable, access: AccessWriter, touched: AccessTouched): AccessRecordWrites {
  return {
    /** A new account's key opens access: written after the commit. */
    recordNewKey: (accountId) => recordGrant(db, touched, accountId),
    /**
     * A rotation (the caller holds the key and account rows FOR UPDATE and has replaced the key):
     * the old key's record goes before the commit (closes); the new key's after it (opens).
     */
    async recordReplacedKey(accountId, oldKeyHash) {
      touched.accounts.add(accountId);
      await written(access.deleteKeys([oldKeyHash]));
      await recordGrant(db, touched, accountId);
    },
    /** A pool reached 0 (closes: before the commit) or left it (opens: after the commit). */
    async recordPoolCredit(accountId, poolId, credited) {
      if (credited) return recordGrant(db, touched, accountId);
      touched.accounts.add(accountId);
      await written(access.setPoolCredit(await activeKeysForUpdate(db, accountId), poolId, false));
    },
  };
}

/**
 * Undoes what a failed transaction's closing writes did: each account touched is rewritten from
 * what Postgres committed. An account that cannot be repaired now (Redis or Postgres away) is
 * tried again every few seconds: until then its records are at worst more restrictive than
 * Postgres (only closing writes are made before a commit).
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
    async repair(accounts: Iterable<number>): Promise<void> {
      for (const accountId of accounts) await repairAccount(accountId);
    },
    stop(): void {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

export type AccessRepair = ReturnType<typeof createAccessRepair>;

export interface AccessGrants {
  /** After a COMMIT: writes the granted accounts' records from Postgres and settles their grants. Never throws. */
  apply(accountIds: Iterable<number>): Promise<void>;
  /** Applies every pending grant (what a killed process left); resolves with how many. */
  sweep(): Promise<number>;
  /** The sweeper: at once, then every `intervalMs`. */
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

/** The open-after-commit half of the rule: pending grants applied after their commit, and swept. */
export function createAccessGrants(pool: pg.Pool, access: AccessWriter, logger: Logger): AccessGrants {
  const settle = (accountId: number) => (db: Queryable) => db.query(SETTLE_GRANT, [accountId]).then(() => undefined);
  const applyOne = (accountId: number): Promise<void> => reconcileAccount(pool, access, accountId, settle(accountId));
  let loop: ReturnType<typeof startWorkerLoop> | undefined;

  const sweep = async (): Promise<number> => {
    let applied = 0;
    for (;;) {
      const result = await pool.query<{ account_id: number }>(PENDING_GRANTS, [500]);
      for (const row of result.rows) await applyOne(Number(row.account_id));
      applied += result.rows.length;
      if (result.rows.length < 500) return applied;
    }
  };

  return {
    async apply(accountIds) {
      for (const accountId of accountIds) {
        try {
          await applyOne(accountId);
        } catch (error) {
          // Committed: the grant row stays, and the sweeper applies it.
          logger.warn('access grant not written yet; the sweeper retries', {
            accountId,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
    },
    sweep,
    start(intervalMs) {
      loop ??= startWorkerLoop({
        name: 'access grant sweeper',
        pollMs: intervalMs,
        backoff: { initialMs: intervalMs, maxMs: intervalMs },
        logger,
        work: async () => {
          await sweep();
          return false;
        },
        failure: (error) => ({
          message: 'access grant sweep failed, will retry',
          fields: { error: error instanceof Error ? error.message : String(error) },
        }),
      });
    },
    async stop() {
      await loop?.stop();
    },
  };
}

/** Where the user service's stores write access records, and what follows a transaction's end. */
export interface AccessRecordsDeps {
  writer: AccessWriter;
  repair: AccessRepair;
  grants: AccessGrants;
  /** Test-only pause points (TEST_PAUSE_AT); undefined in production. */
  pause?: PausePoint | undefined;
}

/**
 * Runs one transaction (`run` resolves once it has committed) by the rule: closing writes made
 * inside it are repaired if it fails; the grants it recorded are applied after it committed.
 */
export async function withAccessRules<T>(access: AccessRecordsDeps, run: (touched: AccessTouched) => Promise<T>): Promise<T> {
  const touched: AccessTouched = { accounts: new Set(), grants: new Set() };
  let result: T;
  try {
    result = await run(touched);
  } catch (error) {
    if (touched.accounts.size > 0) await access.repair.repair(touched.accounts);
    throw error;
  }
  if (touched.grants.size > 0) {
    await access.pause?.('grant-after-commit');
    await access.grants.apply(touched.grants);
  }
  return result;
}

/**
 * The usage batches' side of the rule (BalanceCommitHook): a pool that a batch took from credits
 * to 0 loses its credit bit in Redis inside the batch's transaction, before the debits answer; a
 * Redis failure fails the batch (503, rolled back). A batch that rolls back after the write has
 * its accounts rewritten from what Postgres committed. Debits never open access.
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
      await access.repair.repair(accounts.map((account) => account.accountId));
    },
  };
}
