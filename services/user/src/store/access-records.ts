import type pg from 'pg';
import { unavailable } from '@platform/wire';
import { errorMessage as message, type Logger } from '@platform/runtime';
import { activeKeysForUpdate, reconcileAccount } from '@platform/accounts';
import type { AccessWriter } from '@platform/credentials';
import type { Queryable } from '@platform/db';
import { accessEffectOf, accountOfChange, type AccountChange } from '../domain/account-change';
import type { Pauses } from '../pause-point';
import type { RepairIntents } from '../domain/access-repairs';

/*
 * Redis follows Postgres, and is never more permissive than what Postgres has committed
 * (CONTRACT §3; docs/architecture.md, "Redis follows Postgres"). Which change closes access and
 * which opens it is the domain's rule (domain/account-change.ts, accessEffectOf); this file only
 * executes it, for every account transaction (AccessEffects, one per transaction):
 * - a write that CLOSES access (a replaced key's record deleted, a pool reaching 0) is made inside
 *   the transaction, after its SQL and before its COMMIT, holding the account-row lock; a failed
 *   write fails the transaction (503, nothing changed). Before it, a repair intent goes to Redis;
 *   once the transaction has ended the account is rewritten from what Postgres committed if it
 *   rolled back, and the intent is removed;
 * - a write that OPENS access (a new key, credits from 0) is never made before the COMMIT: the
 *   transaction records a pending grant (access_grants_pending) under the account's shared lock,
 *   and after the COMMIT the account's records are rewritten from Postgres and the grant row is
 *   deleted, before the change answers.
 * A process killed in between leaves the grant row or the intent, and the repair sweeper
 * (access-repairs.ts; at start, then every ACCESS_REPAIR_SWEEP_MS) finishes them: a restarted service converges to
 * Postgres without a Redis restart.
 */

// The same shared lock closing writes take (activeKeysForUpdate): the reconciliation that applies
// the grant (FOR NO KEY UPDATE) waits for this transaction, so it sees its commit and its row.
const LOCK_SHARED = 'SELECT 1 FROM accounts WHERE id = $1 FOR SHARE';
const RECORD_GRANT = 'INSERT INTO access_grants_pending (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING';
const SETTLE_GRANT = 'DELETE FROM access_grants_pending WHERE account_id = $1';

/** Where the user service's stores write access records, and what follows a transaction's end. */
export interface AccessRecordsDeps {
  writer: AccessWriter;
  intents: RepairIntents;
  pool: pg.Pool;
  logger: Logger;
  /** Rings the outbox relay: called after a commit that wrote `balance.changed` events. */
  wake: () => void;
  /** Test-only pause points (TEST_PAUSE_AT); NO_PAUSES in production. */
  pauses: Pauses;
}

/** Rewrites the account's records from what Postgres committed (waiting for any transaction that holds its row), then settles its grant. */
export function reconcile(access: AccessRecordsDeps, accountId: number): Promise<void> {
  return reconcileAccount(access.pool, access.writer, accountId, async (db) => {
    await db.query(SETTLE_GRANT, [accountId]);
  });
}

/**
 * The access side of ONE transaction, by the domain's rule (accessEffectOf decides which changes
 * close and which open; `write` makes the writes): the closing writes it makes, the grants it
 * records, and what follows its end (`committed` or `rolledBack`, exactly one of them, after the
 * transaction has ended and released its locks).
 */
export interface AccessEffects {
  /**
   * The access writes of one change, called after the change's SQL in its transaction (`db`): a
   * pool reaching 0 loses its credit bit and a replaced or disabled key its record before the
   * commit, each with its repair intent (a failure is a 503 and fails the transaction; a replaced
   * key's issuance window carries on to the new key, TOKEN_RATE_PER_ACCOUNT counting per
   * account); what opens is a grant recorded in the transaction, written once it has committed.
   */
  write(change: AccountChange, db: Queryable): Promise<void>;
  committed(): Promise<void>;
  rolledBack(): Promise<void>;
}

function accessEffects(access: AccessRecordsDeps): AccessEffects {
  const closed = new Map<number, string[]>();
  const granted = new Set<number>();
  let changedCredits = false;

  /** After the end: each account rewritten from Postgres; what fails stays for the sweeper. */
  const settle = async (accountIds: Iterable<number>): Promise<void> => {
    for (const accountId of accountIds) {
      try {
        await reconcile(access, accountId);
        await access.intents.remove(closed.get(accountId) ?? []);
      } catch (error) {
        access.logger.warn('access records not rewritten yet; the repair sweeper retries', { accountId, error: message(error) });
      }
    }
  };

  /** A closing write (the caller holds the account row), with its repair intent. */
  const close = async (accountId: number, write: () => Promise<void>): Promise<void> => {
    try {
      const member = await access.intents.add(accountId);
      closed.set(accountId, [...(closed.get(accountId) ?? []), member]);
      await write();
    } catch (error) {
      // Inside the transaction, before its commit: the change is rolled back and takes no effect.
      throw unavailable(error);
    }
  };

  /** Opening: recorded in the transaction, under the account's shared lock. */
  const grant = async (db: Queryable, accountId: number): Promise<void> => {
    await db.query(LOCK_SHARED, [accountId]);
    await db.query(RECORD_GRANT, [accountId]);
    granted.add(accountId);
  };

  return {
    async write(change, db) {
      // Its events are written: the relay is woken after the commit.
      if (change.kind === 'credits' && change.previousCredits !== change.credits) changedCredits = true;
      const effect = accessEffectOf(change);
      if (effect === 'none') return;
      const accountId = accountOfChange(change);
      if (effect === 'open') return grant(db, accountId);
      const { writer } = access;
      switch (change.kind) {
        case 'credits':
          return close(accountId, async () => writer.setPoolCredit(await activeKeysForUpdate(db, accountId), change.poolId, false));
        case 'key-replaced':
          if (change.old.active) await close(accountId, () => writer.deleteKeys([change.old.keyHash]));
          return close(accountId, () => writer.carryIssuanceWindow(change.old.keyHash, change.newKeyHash));
        case 'disabled':
          if (change.key.active) await close(accountId, () => writer.deleteKeys([change.key.keyHash]));
          return;
        case 'email':
        case 'settings':
        case 'enabled':
        case 'key-added':
          throw new Error(`no closing write for a ${change.kind} change`);
      }
    },
    async committed() {
      // Right after the COMMIT: a fault test sees here that the closing writes are in Redis already.
      await access.pauses.at('access-after-commit');
      // Its events are committed: the relay publishes them now rather than at its next poll.
      if (changedCredits) access.wake();
      // The closing writes now match what Postgres committed.
      await access.intents.remove([...closed.values()].flat()).catch((error: unknown) => {
        access.logger.warn('repair intents not removed; the sweeper will', { error: message(error) });
      });
      if (granted.size === 0) return;
      await access.pauses.at('grant-after-commit');
      await settle(granted);
    },
    async rolledBack() {
      await settle(closed.keys());
    },
  };
}

/** Runs one transaction (`run` resolves once it has committed) with its access effects (see AccessEffects). */
export async function withAccessRules<T>(access: AccessRecordsDeps, run: (effects: AccessEffects) => Promise<T>): Promise<T> {
  const effects = accessEffects(access);
  let result: T;
  try {
    result = await run(effects);
  } catch (error) {
    await effects.rolledBack();
    throw error;
  }
  await effects.committed();
  return result;
}
