/**
 * CONTRACT §7.1, the expiry sweep under a killed user service. A reservation that took its pool
 * to 0 expires, and the user service is SIGKILLed in the sweep's transaction:
 * - right before its COMMIT: a trigger of the test's own database makes the sweep's last
 *   statement (the reservation's end) wait for an advisory lock the test holds, after the return
 *   of the units and its ledger row were written; the process is killed and its session ends.
 *   Nothing of the sweep stays, and the restarted service's sweep returns the units once;
 * - right after its COMMIT (TEST_PAUSE_AT `access-after-commit`), before the pool's reopening
 *   reaches Redis: the return stays, it is not made again, and the restarted service reopens
 *   issuance from what Postgres committed.
 * After each, the pool is exact and `verify-ledger` is clean.
 */
import type pg from 'pg';
import { eventually } from '@platform/testing';
import { expectLedgerClean, verifyLedger } from './ledger-check';
import { ledgerRows, reservationBody, reservationRow, reserve } from './reservation-calls';
import { useUserProcessFixture } from './user-process-fixture';

const SWEEP = { RESERVATION_SWEEP_MS: '200' };
// No sweep during the test's own steps.
const NO_SWEEP = { RESERVATION_SWEEP_MS: '50000' };
const LOCK = 4_404_044;

describe('the reservation expiry sweep when the user service is killed in it', () => {
  const fx = useUserProcessFixture('reservation-expiry', { from: 21_550, to: 21_599 });
  const { startUser, kill, pausedAt, createAccount, credits, issuance } = fx;

  /** A reservation of the account's whole pool, past its expiresAt once `ttlSeconds` have gone. */
  async function anEmptiedAccount(total: number): Promise<{ id: number; apiKey: string; reservationId: string }> {
    const user = await startUser(undefined, NO_SWEEP);
    try {
      const account = await createAccount(user, total);
      const held = await reserve(user, reservationBody(account.apiKey, total, 1));
      expect(held).toMatchObject({ status: 201, body: { credits: 0 } });
      expect(await issuance(account.apiKey)).toBe(401);
      return { ...account, reservationId: held.body.reservationId as string };
    } finally {
      await fx.stop(user);
    }
  }

  /** The backend of the sweep's transaction, waiting for the test's lock in its last statement. */
  const sweepWaiting = (db: pg.Pool) =>
    eventually(
      async () =>
        (
          await db.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                AND state = 'active' AND query LIKE 'UPDATE usage_reservations SET state%'`,
          )
        ).rows[0]?.pid,
      20_000,
      "the sweep's transaction waiting before its COMMIT",
    );

  it("when it is killed right before the sweep's COMMIT, then nothing of the sweep stays and the restarted service returns the units once", async () => {
    const account = await anEmptiedAccount(50);
    await fx.pool.query(`CREATE OR REPLACE FUNCTION test_hold_reservation_end() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock_shared(${LOCK}); RETURN NEW; END $$`);
    await fx.pool.query(`CREATE TRIGGER test_hold_reservation_end AFTER UPDATE ON usage_reservations
      FOR EACH ROW WHEN (NEW.state = 'expired') EXECUTE FUNCTION test_hold_reservation_end()`);
    const holder = await fx.pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [LOCK]);
      const first = await startUser(undefined, SWEEP);
      const backend = await sweepWaiting(fx.pool);
      // In flight: the sweep has written the return (pool and ledger) in its transaction; none of it is committed.
      const written = await fx.pool.query<{ relation: string }>(
        `SELECT relation::regclass::text AS relation FROM pg_locks WHERE pid = $1 AND mode = 'RowExclusiveLock' AND granted`,
        [backend],
      );
      expect(written.rows.map((row) => row.relation)).toEqual(expect.arrayContaining(['pool_balances', 'credit_ledger']));
      expect(await credits(account.id)).toBe(0);
      await kill(first);
      // Its session ends with it (Postgres would notice the closed socket at its next write).
      await fx.pool.query('SELECT pg_terminate_backend($1)', [backend]);
      await eventually(
        async () => ((await fx.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [backend])).rowCount === 0 ? true : undefined),
        10_000,
        'the session gone',
      );
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [LOCK]);
      holder.release();
      await fx.pool.query('DROP TRIGGER test_hold_reservation_end ON usage_reservations');
    }
    expect(await reservationRow(fx.pool, account.reservationId)).toEqual({ state: 'held', charged: null });
    expect(await credits(account.id)).toBe(0);
    expect(await ledgerRows(fx.pool, account.id)).toEqual(['top-up 50', 'hold -50']);
    await expectLedgerClean(fx.db.url, 1);

    const second = await startUser(undefined, SWEEP);
    try {
      await eventually(async () => ((await credits(account.id)) === 50 ? true : undefined), 20_000, 'the units returned');
      expect(await reservationRow(fx.pool, account.reservationId)).toEqual({ state: 'expired', charged: 0 });
      expect(await ledgerRows(fx.pool, account.id)).toEqual(['top-up 50', 'hold -50', 'release 50']);
      await eventually(async () => ((await issuance(account.apiKey)) === 200 ? true : undefined), 20_000, 'issuance reopened');
      await expectLedgerClean(fx.db.url, 1);
    } finally {
      await fx.stop(second);
    }
  }, 120_000);

  it("when it is killed right after the sweep's COMMIT, before the reopening reaches Redis, then the return stays once and the restarted service reopens issuance", async () => {
    const account = await anEmptiedAccount(20);
    // The sweep's transaction is this process's first.
    const first = await startUser('access-after-commit@1', SWEEP);
    await pausedAt(first, 'access-after-commit');
    expect(await reservationRow(fx.pool, account.reservationId)).toEqual({ state: 'expired', charged: 0 });
    expect(await credits(account.id)).toBe(20);
    expect(await issuance(account.apiKey)).toBe(401);
    await kill(first);

    const second = await startUser(undefined, SWEEP);
    try {
      await eventually(async () => ((await issuance(account.apiKey)) === 200 ? true : undefined), 20_000, 'issuance reopened');
      expect(await credits(account.id)).toBe(20);
      expect(await ledgerRows(fx.pool, account.id)).toEqual(['top-up 20', 'hold -20', 'release 20']);
      await expectLedgerClean(fx.db.url, 1);
    } finally {
      await fx.stop(second);
    }
  }, 120_000);

  it('when a pool is changed behind its ledger, then the check that ends each fault test file fails naming it', async () => {
    const user = await startUser(undefined, NO_SWEEP);
    const account = await createAccount(user, 10);
    await fx.stop(user);
    await fx.pool.query('UPDATE pool_balances SET credits = credits + 3 WHERE account_id = $1', [account.id]);
    try {
      const verdict = await verifyLedger(fx.db.url);
      expect(verdict).toMatchObject({
        code: 1,
        report: { differences: [expect.objectContaining({ accountId: account.id, poolId: 1, credits: 13, expected: 10 })] },
      });
      expect(verdict.errors).toContain(`account ${account.id} pool 1: credits 13, ledger 10`);
    } finally {
      await fx.pool.query('UPDATE pool_balances SET credits = credits - 3 WHERE account_id = $1', [account.id]);
    }
    await expectLedgerClean(fx.db.url, 1);
  }, 120_000);
});
