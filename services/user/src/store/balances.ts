import { randomUUID } from 'node:crypto';
import type { Queryable } from '@platform/db';
import { BALANCE_CHANGED, balanceChangedSchema, type BalanceChanged } from '@platform/events';

/** One held product with its pool's credits. */
export interface ProductBalance {
  productId: number;
  productName: string;
  credits: number;
}

const BALANCES = `
SELECT p.id, p.name, b.credits
  FROM pool_balances b JOIN products p ON p.pool_id = b.pool_id
 WHERE b.account_id = $1
 ORDER BY p.id`;

/** Every product the account holds (a held pool holds all its products), ordered by product id. */
export async function readBalances(db: Queryable, accountId: number): Promise<ProductBalance[]> {
  const result = await db.query<{ id: number; name: string; credits: number }>(BALANCES, [accountId]);
  return result.rows.map((row) => ({ productId: row.id, productName: row.name, credits: Number(row.credits) }));
}

const PRODUCT_BALANCE = `
SELECT p.id, p.name, b.credits
  FROM products p LEFT JOIN pool_balances b ON b.pool_id = p.pool_id AND b.account_id = $1
 WHERE p.id = $2`;

/** One catalogue product's balance: unknown product, not held, or held with its pool's credits. */
export async function readProductBalance(
  db: Queryable,
  accountId: number,
  productId: number,
): Promise<{ product: 'unknown' } | { product: 'known'; balance: ProductBalance | undefined }> {
  const result = await db.query<{ id: number; name: string; credits: number | null }>(PRODUCT_BALANCE, [accountId, productId]);
  const row = result.rows[0];
  if (!row) return { product: 'unknown' };
  return {
    product: 'known',
    balance: row.credits === null ? undefined : { productId: row.id, productName: row.name, credits: Number(row.credits) },
  };
}

/** Makes the account hold a pool (at 0 credits) unless it already does. */
export async function holdPool(db: Queryable, accountId: number, poolId: number): Promise<void> {
  await db.query('INSERT INTO pool_balances (account_id, pool_id, credits) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING', [accountId, poolId]);
}

export type BalanceChangeCause = BalanceChanged['cause'];

/** A change of one pool's credits. */
export interface BalanceChange {
  accountId: number;
  /** The pool's id (its lowest product id). */
  poolId: number;
  /** Credits added (positive) or removed (negative). */
  delta: number;
  /**
   * `usage`: a debit that fails whole when the pool has fewer credits than asked.
   * `top-up` / `adjustment`: admin changes; a result below 0 is clamped at 0.
   */
  cause: BalanceChangeCause;
  /** Idempotency key of a usage request, kept in the ledger. */
  requestId?: string;
}

export type BalanceChangeResult =
  | { ok: true; previousCredits: number; credits: number; event: BalanceChanged | undefined }
  | { ok: false; reason: 'not_held' | 'insufficient' | 'too_large' };

/** Credits stay exact JavaScript numbers. */
export const MAX_CREDITS = Number.MAX_SAFE_INTEGER;

// Usage: one conditional UPDATE, so concurrent debits never overspend or go below 0.
const DEBIT = `
UPDATE pool_balances SET credits = credits + $3, updated_at = now()
 WHERE account_id = $1 AND pool_id = $2 AND credits + $3 >= 0
RETURNING credits`;

const READ = 'SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = $2';
const LOCK = `${READ} FOR UPDATE`;
const SET = 'UPDATE pool_balances SET credits = $3, updated_at = now() WHERE account_id = $1 AND pool_id = $2 RETURNING credits';

const LEDGER = `
INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause, request_id)
VALUES ($1, $2, $3, $4, $5, $6)`;

const OUTBOX = 'INSERT INTO outbox_events (id, routing_key, payload) VALUES ($1, $2, $3)';

/**
 * Changes one pool's credits and, in the same transaction (run it on a client inside one),
 * appends the ledger row and the outbox `balance.changed` event (CONTRACT §5, §6). A change
 * that changes nothing (a clamped adjustment of an empty pool, an amount of 0) writes neither.
 */
export async function changeBalance(db: Queryable, change: BalanceChange): Promise<BalanceChangeResult> {
  if (!Number.isSafeInteger(change.delta) || (change.cause === 'usage' && change.delta > 0)) {
    throw new RangeError(`invalid ${change.cause} delta: ${change.delta}`);
  }
  const amounts = change.cause === 'usage' ? await debit(db, change) : await adjust(db, change);
  if (!amounts.ok) return amounts;
  const { previousCredits, credits } = amounts;
  if (previousCredits === credits) return { ok: true, previousCredits, credits, event: undefined };
  await db.query(LEDGER, [change.accountId, change.poolId, credits - previousCredits, credits, change.cause, change.requestId ?? null]);
  const event = balanceChangedSchema.parse({
    id: randomUUID(),
    type: BALANCE_CHANGED,
    accountId: change.accountId,
    productId: change.poolId,
    previousCredits,
    credits,
    cause: change.cause,
    occurredAt: new Date().toISOString(),
  } satisfies BalanceChanged);
  await db.query(OUTBOX, [event.id, BALANCE_CHANGED, JSON.stringify(event)]);
  return { ok: true, previousCredits, credits, event };
}

type Amounts = { ok: true; previousCredits: number; credits: number } | { ok: false; reason: 'not_held' | 'insufficient' | 'too_large' };

async function debit(db: Queryable, change: BalanceChange): Promise<Amounts> {
  const result = await db.query<{ credits: number }>(DEBIT, [change.accountId, change.poolId, change.delta]);
  const row = result.rows[0];
  if (row) {
    const credits = Number(row.credits);
    return { ok: true, previousCredits: credits - change.delta, credits };
  }
  const held = await db.query(READ, [change.accountId, change.poolId]);
  return { ok: false, reason: held.rowCount === 0 ? 'not_held' : 'insufficient' };
}

async function adjust(db: Queryable, change: BalanceChange): Promise<Amounts> {
  const locked = await db.query<{ credits: number }>(LOCK, [change.accountId, change.poolId]);
  const row = locked.rows[0];
  if (!row) return { ok: false, reason: 'not_held' };
  const previousCredits = Number(row.credits);
  const credits = Math.max(previousCredits + change.delta, 0);
  if (credits > MAX_CREDITS) return { ok: false, reason: 'too_large' };
  if (credits !== previousCredits) await db.query(SET, [change.accountId, change.poolId, credits]);
  return { ok: true, previousCredits, credits };
}
