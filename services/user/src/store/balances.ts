import type DataLoader from 'dataloader';
import { readBatch } from '@platform/runtime';
import type { Queryable } from '@platform/db';
import type { BalanceReads } from '../domain/balance';
import type { PoolCredits, ProductBalance } from '../domain/user-store';
import { catalogueProduct, type KeptCatalogue } from './catalogue';

// Products come from the kept catalogue, so a balance is one primary-key range read. No query is
// a named prepared statement: DATABASE_URL may be a pooler in transaction mode (CONTRACT §1).
const POOL_CREDITS = 'SELECT pool_id, credits FROM pool_balances WHERE account_id = $1';
const POOL_CREDIT = 'SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = $2';

/** The pools an account holds, with their credits (any order). */
async function readPoolCredits(db: Queryable, accountId: number): Promise<PoolCredits[]> {
  const result = await db.query<{ pool_id: number; credits: number }>({
    text: POOL_CREDITS,
    values: [accountId],
  });
  return result.rows.map((row) => ({ poolId: row.pool_id, credits: Number(row.credits) }));
}

/** Every product of the given pools with its pool's credits, ordered by product id. */
export async function productBalances(db: Queryable, kept: KeptCatalogue, pools: readonly PoolCredits[]): Promise<ProductBalance[]> {
  if (pools.length === 0) return [];
  let known = await kept.current(db);
  if (pools.some((pool) => !known.byPool.has(pool.poolId))) known = await kept.reload(db);
  const balances: ProductBalance[] = [];
  for (const pool of pools) {
    for (const product of known.byPool.get(pool.poolId) ?? []) {
      balances.push({ productId: product.id, productName: product.name, credits: pool.credits });
    }
  }
  return balances.sort((a, b) => a.productId - b.productId);
}

const POOL_CREDITS_OF_ACCOUNTS = 'SELECT account_id, pool_id, credits FROM pool_balances WHERE account_id = ANY($1::int[])';
// The API-key balance read: the key check (as KeyDirectory.findActive: an active key; every key
// row has its account, a foreign key) and the account's pools in one round trip. A key whose
// account holds no pool: one row with a null pool.
const POOL_CREDITS_BY_KEYS = `
SELECT k.key_hash, k.account_id, b.pool_id, b.credits
  FROM api_keys k LEFT JOIN pool_balances b ON b.account_id = k.account_id
 WHERE k.key_hash = ANY($1::text[]) AND k.active`;

/** The batches of one pool (a transaction's client reads on its own). */
interface Batches {
  byAccount: DataLoader<number, PoolCredits[]>;
  byKey: DataLoader<string, { accountId: number; pools: PoolCredits[] } | undefined>;
}

const batchesOfPools = new WeakMap<Queryable, Batches>();

function batchesOf(db: Queryable): Batches {
  let batches = batchesOfPools.get(db);
  if (batches) return batches;
  batches = {
    byAccount: readBatch(
      async (accountIds) => {
        const result = await db.query<{ account_id: number; pool_id: number; credits: number }>({
          text: POOL_CREDITS_OF_ACCOUNTS,
          values: [accountIds],
        });
        const found = new Map<number, PoolCredits[]>();
        for (const row of result.rows) {
          const pool = { poolId: row.pool_id, credits: Number(row.credits) };
          const accountId = Number(row.account_id);
          const pools = found.get(accountId);
          if (pools) pools.push(pool);
          else found.set(accountId, [pool]);
        }
        return found;
      },
      () => [],
    ),
    byKey: readBatch(
      async (keyHashes) => {
        const result = await db.query<{ key_hash: string; account_id: number; pool_id: number | null; credits: number | null }>({
          text: POOL_CREDITS_BY_KEYS,
          values: [keyHashes],
        });
        const found = new Map<string, { accountId: number; pools: PoolCredits[] }>();
        for (const row of result.rows) {
          let entry = found.get(row.key_hash);
          if (!entry) {
            entry = { accountId: Number(row.account_id), pools: [] };
            found.set(row.key_hash, entry);
          }
          if (row.pool_id !== null) entry.pools.push({ poolId: row.pool_id, credits: Number(row.credits) });
        }
        return found;
      },
      () => undefined,
    ),
  };
  batchesOfPools.set(db, batches);
  return batches;
}

const INT4_MAX = 2_147_483_647;

/**
 * As readPoolCredits, batched with the other reads of the same turn on the same pool. Pass the
 * pool (not a transaction's client). The result is shared with callers of the same account:
 * read it, do not change it.
 */
export function readPoolCreditsBatched(pool: Queryable, accountId: number): Promise<readonly PoolCredits[]> {
  // An id outside the column's type fails its query, as it did alone: it must not fail a batch.
  if (!Number.isSafeInteger(accountId) || accountId < 0 || accountId > INT4_MAX) return readPoolCredits(pool, accountId);
  return batchesOf(pool).byAccount.load(accountId);
}

/**
 * As readPoolCreditsByKey, batched with the other reads of the same turn on the same pool
 * (`keyHash` a SHA-256 hex digest). The result is shared with callers of the same key: read it,
 * do not change it.
 */
export function readPoolCreditsByKeyBatched(
  pool: Queryable,
  keyHash: string,
): Promise<{ readonly accountId: number; readonly pools: readonly PoolCredits[] } | undefined> {
  return batchesOf(pool).byKey.load(keyHash);
}

/** Every product the account holds (a held pool holds all its products), ordered by product id. */
export async function readBalances(db: Queryable, kept: KeptCatalogue, accountId: number): Promise<ProductBalance[]> {
  return productBalances(db, kept, await readPoolCredits(db, accountId));
}

/** One catalogue product's balance: unknown product, not held, or held with its pool's credits. */
export async function readProductBalance(
  db: Queryable,
  kept: KeptCatalogue,
  accountId: number,
  productId: number,
): Promise<{ product: 'unknown' } | { product: 'known'; balance: ProductBalance | undefined }> {
  const product = await catalogueProduct(kept, db, productId);
  if (!product) return { product: 'unknown' };
  const result = await db.query<{ credits: number }>({ text: POOL_CREDIT, values: [accountId, product.poolId] });
  const row = result.rows[0];
  return {
    product: 'known',
    balance: row ? { productId: product.id, productName: product.name, credits: Number(row.credits) } : undefined,
  };
}

/** Makes the account hold a pool (at 0 credits) unless it already does. */
export async function holdPool(db: Queryable, accountId: number, poolId: number): Promise<void> {
  await db.query('INSERT INTO pool_balances (account_id, pool_id, credits) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING', [accountId, poolId]);
}

/** The balance endpoint's reads on the pool (not a transaction's client: they are batched). */
export function createBalanceReads(pool: Queryable, kept: KeptCatalogue): BalanceReads {
  return {
    poolsByKey: (keyHash) => readPoolCreditsByKeyBatched(pool, keyHash),
    poolsOf: (accountId) => readPoolCreditsBatched(pool, accountId),
    productBalances: (pools) => productBalances(pool, kept, pools),
  };
}
