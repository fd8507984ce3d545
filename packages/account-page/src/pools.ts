import type { BalanceRow, CatalogueProduct } from './api';

/** One credit pool the account holds: its products (by id) and the credits they share. */
export interface PoolBalance {
  poolId: number;
  /** The pool's name: its lowest-id product's. */
  name: string;
  products: string[];
  credits: number;
}

/**
 * Groups the balance's products by pool (the catalogue knows each product's pool), ordered by
 * pool id. A product the catalogue does not know is a pool of its own.
 */
export function poolsOf(balance: readonly BalanceRow[], catalogue: readonly CatalogueProduct[]): PoolBalance[] {
  const poolOf = new Map(catalogue.map((product) => [product.id, product.poolId]));
  const pools = new Map<number, PoolBalance>();
  for (const row of [...balance].sort((a, b) => a.product_id - b.product_id)) {
    const poolId = poolOf.get(row.product_id) ?? row.product_id;
    const pool = pools.get(poolId);
    if (pool) pool.products.push(row.product.name);
    else pools.set(poolId, { poolId, name: row.product.name, products: [row.product.name], credits: row.credits });
  }
  return [...pools.values()].sort((a, b) => a.poolId - b.poolId);
}

/** A pool at 0 is empty; under the alert threshold, low (CONTRACT §4.7). */
export type PoolStatus = 'empty' | 'low' | 'ok';

export function poolStatus(credits: number, threshold: number): PoolStatus {
  if (credits === 0) return 'empty';
  return credits < threshold ? 'low' : 'ok';
}
