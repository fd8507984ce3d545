import type { Queryable } from '@platform/db';
import type { Catalogue, CatalogueReads, Product } from '../domain/catalogue';

const CATALOGUE = { text: 'SELECT id, name, pool_id FROM products ORDER BY id' };

function catalogueOf(rows: ReadonlyArray<{ id: number; name: string; pool_id: number }>): Catalogue {
  const products = rows.map((row): Product => ({ id: row.id, name: row.name, poolId: row.pool_id }));
  const byPool = new Map<number, Product[]>();
  for (const product of products) {
    const members = byPool.get(product.poolId);
    if (members) members.push(product);
    else byPool.set(product.poolId, [product]);
  }
  return { products, byId: new Map(products.map((product) => [product.id, product])), byPool };
}

/**
 * The products table as one service instance keeps it (one per app, never per process: two apps in
 * one process, on two databases, each keep their own). The catalogue is reference data that only a
 * migration writes (CONTRACT §5), so it is read on first use and kept. It is read again only when a
 * lookup meets a product id or a pool id the kept copy does not know (a migration added products
 * while the service ran): `catalogueProduct`, `findProducts` (when the table returns such an id),
 * `productBalances` and the usage history's product names. So what a migration changes in a row the
 * copy already knows (a product's name or its pool_id) lags without a time bound: lookups keep
 * answering the old value until one of those misses, or a restart, reads the table again. (A
 * `findProducts` call that asks for an unknown id answers all its ids from the table, so it alone
 * sees the new values before the copy does.) A product removed from the table stays known.
 */
export interface KeptCatalogue {
  /** The kept catalogue, read on first use (on the caller's own connection). */
  current(db: Queryable): Catalogue | Promise<Catalogue>;
  /** Reads the products table again (on the caller's own connection) and keeps the result. */
  reload(db: Queryable): Promise<Catalogue>;
}

export function keptCatalogue(): KeptCatalogue {
  let cached: Catalogue | undefined;
  const reload = async (db: Queryable): Promise<Catalogue> => {
    const result = await db.query<{ id: number; name: string; pool_id: number }>(CATALOGUE);
    cached = catalogueOf(result.rows);
    return cached;
  };
  return { reload, current: (db) => cached ?? reload(db) };
}

const FIND_PRODUCTS = 'SELECT id, name, pool_id FROM products WHERE id = ANY($1::int[]) ORDER BY id';

/** The catalogue entries among `ids`, ordered by id (unknown ids are simply missing). */
export async function findProducts(kept: KeptCatalogue, db: Queryable, ids: number[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const known = await kept.current(db);
  if (ids.every((id) => known.byId.has(id))) {
    return [...new Set(ids)].map((id) => ({ ...(known.byId.get(id) as Product) })).sort((a, b) => a.id - b.id);
  }
  // An id the kept copy does not know: ask the table, as before the copy existed.
  const result = await db.query<{ id: number; name: string; pool_id: number }>(FIND_PRODUCTS, [ids]);
  if (result.rows.some((row) => !known.byId.has(row.id))) await kept.reload(db);
  return result.rows.map((row) => ({ id: row.id, name: row.name, poolId: row.pool_id }));
}

/** A catalogue product by id; undefined when the catalogue has no such product. */
export async function catalogueProduct(kept: KeptCatalogue, db: Queryable, productId: number): Promise<Product | undefined> {
  const known = await kept.current(db);
  return known.byId.get(productId) ?? (await kept.reload(db)).byId.get(productId);
}

/** The catalogue port on the pool, over the app's kept catalogue. */
export function createCatalogueReads(db: Queryable, kept: KeptCatalogue): CatalogueReads {
  return {
    product: (productId) => catalogueProduct(kept, db, productId),
    current: () => kept.current(db),
    reload: () => kept.reload(db),
  };
}
