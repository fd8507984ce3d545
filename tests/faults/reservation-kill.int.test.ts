/**
 * CONTRACT §7.1, reservations under a killed user service: SIGKILL while reservations are held
 * (between reserve and settle), right after a hold's COMMIT before its 201, and right after a
 * settle's COMMIT before its 200 (TEST_PAUSE_AT `access-after-commit`, which every reservation
 * transaction passes right after its COMMIT). After a restart the product service's retries and
 * the expiry sweeper end every reservation exactly once: the pool ends at its credits minus what
 * was charged, the ledger holds each hold and return once, and `verify-ledger` is clean (here per
 * account, and for the whole database at the end of the file, through the fixture).
 */
import { eventually } from '@platform/testing';
import { ledgerRows, release, reservationBody, reservationRow, reserve, settle } from './reservation-calls';
import { useUserProcessFixture } from './user-process-fixture';
import { expectLedgerClean } from './ledger-check';

// Fast sweeps, so that an expired reservation is returned within the test's wait.
const SWEEP = { RESERVATION_SWEEP_MS: '200' };

describe('reservations when the user service is killed (SIGKILL) with reservations in flight', () => {
  const fx = useUserProcessFixture('reservation-kill', { from: 21_500, to: 21_549 });
  const { startUser, kill, pausedAt, createAccount, credits } = fx;
  const id = (answer: { body: Record<string, unknown> }): string => answer.body.reservationId as string;

  it('when it is killed while three reservations are held, then after a restart one settles, one releases and one expires, and the pool is exact', async () => {
    const first = await startUser(undefined, SWEEP);
    const account = await createAccount(first, 100);
    const settled = await reserve(first, reservationBody(account.apiKey, 30, 600));
    const released = await reserve(first, reservationBody(account.apiKey, 20, 600));
    const expiring = await reserve(first, reservationBody(account.apiKey, 10, 2));
    expect([settled.status, released.status, expiring.status]).toEqual([201, 201, 201]);
    // In flight: the three holds are taken and none is ended when the process dies.
    expect(await credits(account.id)).toBe(40);
    expect(await Promise.all([settled, released, expiring].map(async (r) => (await reservationRow(fx.pool, id(r)))?.state))).toEqual([
      'held',
      'held',
      'held',
    ]);
    await kill(first);

    const second = await startUser(undefined, SWEEP);
    try {
      // The restarted service's sweeper returns the one past its expiresAt.
      await eventually(
        async () => ((await reservationRow(fx.pool, id(expiring)))?.state === 'expired' ? true : undefined),
        20_000,
        'the expired reservation returned by the restarted service',
      );
      expect(await credits(account.id)).toBe(50);
      expect(await settle(second, id(settled), 25)).toEqual({
        status: 200,
        body: { reservationId: id(settled), charged: 25, released: 5, credits: 55 },
      });
      expect(await release(second, id(released))).toEqual({
        status: 200,
        body: { reservationId: id(released), charged: 0, released: 20, credits: 75 },
      });
      expect(await credits(account.id)).toBe(75);
      expect(await ledgerRows(fx.pool, account.id)).toEqual([
        'top-up 100',
        'hold -30',
        'hold -20',
        'hold -10',
        'release 10',
        'release 30',
        'usage -25',
        'release 20',
      ]);
      await expectLedgerClean(fx.db.url, 1);
    } finally {
      await fx.stop(second);
    }
  }, 120_000);

  it("when it is killed after a hold's COMMIT, before its 201, then the retried reserve answers the same reservation and nothing is held twice", async () => {
    // Hit 1 is the account's creation; hit 2 the hold.
    const first = await startUser('access-after-commit@2');
    const account = await createAccount(first, 100);
    const body = reservationBody(account.apiKey, 30, 600);
    const unanswered = reserve(first, body).then(
      () => 'answered',
      () => 'no answer',
    );
    await pausedAt(first, 'access-after-commit');
    // Committed: the hold is in Postgres, its answer not sent.
    expect(await credits(account.id)).toBe(70);
    await kill(first);
    expect(await unanswered).toBe('no answer');

    const second = await startUser();
    try {
      const retried = await reserve(second, body);
      expect(retried).toMatchObject({ status: 201, body: { accountId: account.id, productId: 1, units: 30, credits: 70 } });
      expect(await credits(account.id)).toBe(70);
      expect(await settle(second, id(retried), 30)).toMatchObject({ status: 200, body: { charged: 30, released: 0, credits: 70 } });
      expect(await ledgerRows(fx.pool, account.id)).toEqual(['top-up 100', 'hold -30', 'release 30', 'usage -30']);
      await expectLedgerClean(fx.db.url, 1);
    } finally {
      await fx.stop(second);
    }
  }, 120_000);

  it("when it is killed after a settle's COMMIT, before its 200, then the repeated settle answers the first answer, the other ends are 409, and nothing is charged twice", async () => {
    const first = await startUser();
    const account = await createAccount(first, 100);
    const held = await reserve(first, reservationBody(account.apiKey, 30, 600));
    expect(held.status).toBe(201);
    await fx.stop(first);

    // The settle is this process's first transaction.
    const second = await startUser('access-after-commit@1');
    const unanswered = settle(second, id(held), 12).then(
      () => 'answered',
      () => 'no answer',
    );
    await pausedAt(second, 'access-after-commit');
    expect(await reservationRow(fx.pool, id(held))).toEqual({ state: 'settled', charged: 12 });
    await kill(second);
    expect(await unanswered).toBe('no answer');

    const third = await startUser();
    try {
      const end = { status: 200, body: { reservationId: id(held), charged: 12, released: 18, credits: 88 } };
      expect(await settle(third, id(held), 12)).toEqual(end);
      expect(await settle(third, id(held), 12)).toEqual(end);
      expect((await release(third, id(held))).status).toBe(409);
      expect((await settle(third, id(held), 13)).status).toBe(409);
      expect(await credits(account.id)).toBe(88);
      expect(await ledgerRows(fx.pool, account.id)).toEqual(['top-up 100', 'hold -30', 'release 30', 'usage -12']);
      await expectLedgerClean(fx.db.url, 1);
    } finally {
      await fx.stop(third);
    }
  }, 120_000);
});
