/**
 * The reservation calls of CONTRACT §7.1 as a product service makes them (service JWT), and what
 * Postgres holds of a reservation and of an account's ledger, for the reservation fault tests.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { signServiceJwt } from '@platform/credentials';
import type { ServiceProcess } from '@platform/testing';
import { SERVICE_JWT_SECRET } from './user-process-fixture';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function post(user: ServiceProcess, route: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${user.url}/internal/v1/usage/reservations${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${signServiceJwt({ issuer: 'reservation-faults', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 })}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A reservation request's body (a fresh requestId unless given: a retry sends the same body). */
export const reservationBody = (apiKey: string, units: number, ttlSeconds: number, requestId = randomUUID()) => ({
  credential: apiKey,
  productId: 1,
  units,
  requestId,
  ttlSeconds,
});

export const reserve = (user: ServiceProcess, body: ReturnType<typeof reservationBody>) => post(user, '', body);
export const settle = (user: ServiceProcess, id: string, units: number) => post(user, `/${id}/settle`, { units });
export const release = (user: ServiceProcess, id: string) => post(user, `/${id}/release`, {});

/** The reservation's row: its state and what it charged. */
export async function reservationRow(db: pg.Pool, id: string): Promise<{ state: string; charged: number | null } | undefined> {
  const result = await db.query<{ state: string; charged: number | null }>('SELECT state, charged FROM usage_reservations WHERE id = $1', [
    id,
  ]);
  return result.rows[0];
}

/** Every ledger row of the account's pool 1, oldest first, as `<cause> <delta>`. */
export async function ledgerRows(db: pg.Pool, accountId: number): Promise<string[]> {
  const result = await db.query<{ cause: string; delta: string }>(
    'SELECT cause, delta FROM credit_ledger WHERE account_id = $1 AND pool_id = 1 ORDER BY id',
    [accountId],
  );
  return result.rows.map((row) => `${row.cause} ${row.delta}`);
}
