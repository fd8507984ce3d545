import type { Queryable } from '@platform/db';

/** A catalogue product and the pool it draws from (the pool's lowest product id). */
export interface Product {
  id: number;
  name: string;
  poolId: number;
}

/** The catalogue entries among `ids` (unknown ids are simply missing). */
export async function findProducts(db: Queryable, ids: number[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const result = await db.query<{ id: number; name: string; pool_id: number }>(
    'SELECT id, name, pool_id FROM products WHERE id = ANY($1::int[]) ORDER BY id',
    [ids],
  );
  return result.rows.map((row) => ({ id: row.id, name: row.name, poolId: row.pool_id }));
}
