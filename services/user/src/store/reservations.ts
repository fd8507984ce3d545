import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { activeKeysForUpdate } from '@platform/accounts';
import { withTransaction } from '@platform/db';
import { BALANCE_CHANGED, type BalanceChanged } from '@platform/events';
import { endOf, type EndDecision, type HeldReservation, type ReservationEnd } from '../domain/reservation-rules';
import type { NewReservation, Reservation, ReservationStore, ReserveOutcome } from '../domain/reservations';
import { withAccessRules, type AccessEffects } from './access-records';
import { writeCreditChanges, type LedgerEntry } from './credit-writes';

const LOCK_POOL = 'SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = $2 FOR UPDATE';
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

/** A reservation's change of its pool, as the event of CONTRACT §6 (a hold or a return is usage to the notifier). */
function eventOf(accountId: number, poolId: number, previousCredits: number, credits: number): BalanceChanged {
  const occurredAt = new Date().toISOString();
  return { id: randomUUID(), type: BALANCE_CHANGED, accountId, productId: poolId, previousCredits, credits, cause: 'usage', occurredAt };
}

/**
 * Writes a pool change on the credit write path, in the transaction that locked the pool, with
 * its access side (a pool reaching 0 closes before the commit, one leaving 0 opens after it).
 */
async function writePoolChange(
  client: pg.PoolClient,
  effects: AccessEffects,
  change: { accountId: number; poolId: number; previousCredits: number; credits: number },
  entries: readonly LedgerEntry[],
): Promise<void> {
  const { accountId, poolId, previousCredits, credits } = change;
  const changed = previousCredits !== credits;
  await writeCreditChanges(client, {
    pools: changed ? [{ accountId, poolId, credits }] : [],
    entries,
    events: changed ? [eventOf(accountId, poolId, previousCredits, credits)] : [],
  });
  await effects.creditChanged(change, {
    activeKeys: () => activeKeysForUpdate(client, accountId),
    grant: () => effects.grant(client, accountId),
  });
}

const entry = (
  base: Pick<LedgerEntry, 'accountId' | 'poolId' | 'productId'>,
  cause: LedgerEntry['cause'],
  delta: number,
  credits: number,
) => ({
  ...base,
  cause,
  delta,
  credits,
  requestId: null,
  digest: null,
});

async function reserveIn(client: pg.PoolClient, effects: AccessEffects, request: NewReservation): Promise<ReserveOutcome> {
  const existing = await client.query<ReservationRow>(BY_REQUEST_ID, [request.requestId]);
  const found = existing.rows[0];
  if (found) return { kind: 'replayed', reservation: reservationOf(found), digest: found.request_digest };
  const { accountId, poolId, productId, units } = request;
  const locked = await client.query<{ credits: string }>(LOCK_POOL, [accountId, poolId]);
  const row = locked.rows[0];
  const previous = row ? Number(row.credits) : -1;
  if (previous < units) return { kind: 'exhausted' };
  const credits = previous - units;
  const inserted = await client.query<ReservationRow>(INSERT, [
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
  await writePoolChange(client, effects, { accountId, poolId, previousCredits: previous, credits }, [
    entry({ accountId, poolId, productId }, 'hold', -units, credits),
  ]);
  return { kind: 'reserved', reservation: reservationOf(inserted.rows[0] as ReservationRow) };
}

/** The return's ledger rows: the whole hold back, then the charge as usage (so that usage history counts it). */
async function endIn(
  client: pg.PoolClient,
  effects: AccessEffects,
  reservation: HeldReservation,
  write: { state: string; charged: number },
): Promise<ReservationEnd> {
  const { accountId, poolId, productId, units, reservationId } = reservation;
  const locked = await client.query<{ credits: string }>(LOCK_POOL, [accountId, poolId]);
  const previous = Number(locked.rows[0]?.credits ?? 0);
  const returned = previous + units;
  const credits = returned - write.charged;
  const base = { accountId, poolId, productId };
  const entries = [entry(base, 'release', units, returned)];
  if (write.charged > 0) entries.push(entry(base, 'usage', -write.charged, credits));
  await writePoolChange(client, effects, { accountId, poolId, previousCredits: previous, credits }, entries);
  await client.query(END, [reservationId, write.state, write.charged, credits]);
  return { reservationId, charged: write.charged, released: units - write.charged, credits };
}

export function createReservationStore(pool: pg.Pool, access: Parameters<typeof withAccessRules>[0]): ReservationStore {
  const transaction = <T>(fn: (client: pg.PoolClient, effects: AccessEffects) => Promise<T>): Promise<T> =>
    withAccessRules(access, (effects) => withTransaction(pool, (client) => fn(client, effects)));
  return {
    async reserve(request) {
      try {
        return await transaction((client, effects) => reserveIn(client, effects, request));
      } catch (error) {
        // Another replica created the same requestId meanwhile: its reservation is the answer.
        if ((error as { code?: unknown } | null)?.code !== UNIQUE_VIOLATION) throw error;
        return transaction((client, effects) => reserveIn(client, effects, request));
      }
    },
    async end(reservationId, decide: (reservation: HeldReservation) => EndDecision) {
      return transaction(async (client, effects) => {
        const row = (await client.query<ReservationRow>(LOCK_RESERVATION, [reservationId])).rows[0];
        if (!row) return { kind: 'not_found' };
        const reservation = heldOf(row);
        const decision = decide(reservation);
        if (decision.kind === 'too_many') return { kind: 'decided', decision, end: undefined };
        const written = decision.write ? await endIn(client, effects, reservation, decision.write) : undefined;
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
