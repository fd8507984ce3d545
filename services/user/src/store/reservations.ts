import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Queryable } from '@platform/db';
import { decideCredits, type CreditCause, type CreditEntry } from '../domain/account-change';
import type { AccountTransaction } from '../domain/account-transaction';
import { endOf, type EndDecision, type HeldReservation, type ReservationEnd } from '../domain/reservation-rules';
import type { NewReservation, Reservation, ReservationStore, ReserveOutcome } from '../domain/reservations';
import type { AccountTransactionsOn } from './account-transaction';

const RESERVATION_COLUMNS = `id, request_digest, account_id, pool_id, product_id, units, credits_after_hold, expires_at, state, charged,
  credits_after_end, expires_at <= now() AS expired`;
const BY_REQUEST_ID = `SELECT ${RESERVATION_COLUMNS} FROM usage_reservations WHERE request_id = $1`;
const LOCK_RESERVATION = `SELECT ${RESERVATION_COLUMNS} FROM usage_reservations WHERE id = $1 FOR UPDATE`;
const INSERT = `
INSERT INTO usage_reservations (id, request_id, request_digest, account_id, pool_id, product_id, units, credits_after_hold, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9))
RETURNING ${RESERVATION_COLUMNS}`;
const END = 'UPDATE usage_reservations SET state = $2, charged = $3, credits_after_end = $4, ended_at = now() WHERE id = $1';
const DUE = `SELECT id FROM usage_reservations WHERE state = 'held' AND expires_at <= now() ORDER BY expires_at LIMIT $1`;
const UNIQUE_VIOLATION = '23505';

interface ReservationRow {
  id: string;
  request_digest: string;
  account_id: number;
  pool_id: number;
  product_id: number;
  units: number;
  credits_after_hold: string;
  expires_at: Date;
  state: HeldReservation['state'];
  charged: number | null;
  credits_after_end: string | null;
  expired: boolean;
}

const reservationOf = (row: ReservationRow): Reservation => ({
  reservationId: row.id,
  accountId: row.account_id,
  productId: row.product_id,
  units: row.units,
  expiresAt: row.expires_at.toISOString(),
  credits: Number(row.credits_after_hold),
});

const heldOf = (row: ReservationRow): HeldReservation => ({
  reservationId: row.id,
  accountId: row.account_id,
  poolId: row.pool_id,
  productId: row.product_id,
  units: row.units,
  state: row.state,
  charged: row.charged,
  creditsAfterEnd: row.credits_after_end === null ? null : Number(row.credits_after_end),
  expired: row.expired,
});

const entry = (reservation: Pick<HeldReservation, 'productId'>, cause: CreditCause, delta: number, credits: number): CreditEntry => ({
  productId: reservation.productId,
  cause,
  delta,
  credits,
  requestId: null,
  digest: null,
});

async function reserveIn(tx: AccountTransaction, db: Queryable, request: NewReservation): Promise<ReserveOutcome> {
  const existing = await db.query<ReservationRow>(BY_REQUEST_ID, [request.requestId]);
  const found = existing.rows[0];
  if (found) return { kind: 'replayed', reservation: reservationOf(found), digest: found.request_digest };
  const { accountId, poolId, productId, units } = request;
  const decided = decideCredits(await tx.lockPool(accountId, poolId), { cause: 'hold', units });
  if (!decided.ok) return { kind: 'exhausted' };
  const { previousCredits, credits } = decided;
  const inserted = await db.query<ReservationRow>(INSERT, [
    randomUUID(),
    request.requestId,
    request.digest,
    accountId,
    poolId,
    productId,
    units,
    credits,
    request.ttlSeconds,
  ]);
  await tx.apply([{ kind: 'credits', accountId, poolId, previousCredits, credits, entries: [entry(request, 'hold', -units, credits)] }]);
  return { kind: 'reserved', reservation: reservationOf(inserted.rows[0] as ReservationRow) };
}

/** The return's ledger rows: the whole hold back, then the charge as usage (so that usage history counts it). */
async function endIn(
  tx: AccountTransaction,
  db: Queryable,
  reservation: HeldReservation,
  write: { state: string; charged: number },
): Promise<ReservationEnd> {
  const { accountId, poolId, units, reservationId } = reservation;
  const decided = decideCredits(await tx.lockPool(accountId, poolId), { cause: 'release', units, charged: write.charged });
  if (!decided.ok) throw new Error(`a reservation's return cannot fail: ${decided.reason}`);
  const { previousCredits, credits } = decided;
  const entries = [entry(reservation, 'release', units, previousCredits + units)];
  if (write.charged > 0) entries.push(entry(reservation, 'usage', -write.charged, credits));
  await tx.apply([{ kind: 'credits', accountId, poolId, previousCredits, credits, entries }]);
  await db.query(END, [reservationId, write.state, write.charged, credits]);
  return { reservationId, charged: write.charged, released: units - write.charged, credits };
}

/** The reservations' rows on Postgres, beside the account changes of the one account transaction (their pools, ledger, access). */
export function createReservationStore(pool: pg.Pool, accounts: AccountTransactionsOn): ReservationStore {
  const transaction = <T>(fn: (tx: AccountTransaction, db: Queryable) => Promise<T>): Promise<T> =>
    accounts.transactionOn('reservation', fn);
  return {
    async reserve(request) {
      try {
        return await transaction((tx, db) => reserveIn(tx, db, request));
      } catch (error) {
        // Another replica created the same requestId meanwhile: its reservation is the answer.
        if ((error as { code?: unknown } | null)?.code !== UNIQUE_VIOLATION) throw error;
        return transaction((tx, db) => reserveIn(tx, db, request));
      }
    },
    async end(reservationId, decide: (reservation: HeldReservation) => EndDecision) {
      return transaction(async (tx, db) => {
        const row = (await db.query<ReservationRow>(LOCK_RESERVATION, [reservationId])).rows[0];
        if (!row) return { kind: 'not_found' };
        const reservation = heldOf(row);
        const decision = decide(reservation);
        if (decision.kind === 'too_many') return { kind: 'decided', decision, end: undefined };
        const written = decision.write ? await endIn(tx, db, reservation, decision.write) : undefined;
        const end = written ?? (reservation.state === 'held' ? undefined : endOf(reservation));
        return { kind: 'decided', decision, end };
      });
    },
    async due(limit) {
      const result = await pool.query<{ id: string }>(DUE, [limit]);
      return result.rows.map((row) => row.id);
    },
  };
}
