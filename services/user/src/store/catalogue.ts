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

// The catalogue is reference data that only a migration writes (CONTRACT §5), so it is read once
// and kept. A lookup that misses (an id or a pool the kept copy does not know: a migration added
// products while the service ran) reads the table again before it answers, so the copy can lag
// only in names of products it already knows, which no flow changes.
let cached: Catalogue | undefined;

/** Reads the products table again (on the caller's own connection) and keeps the result. */
export async function reloadCatalogue(db: Queryable): Promise<Catalogue> {
  const result = await db.query<{ id: number; name: string; pool_id: number }>(CATALOGUE);
  cached = catalogueOf(result.rows);
  return cached;
}

/** The kept catalogue, read on first use. */
export function catalogue(db: Queryable): Catalogue | Promise<Catalogue> {
  return cached ?? reloadCatalogue(db);
}

const FIND_PRODUCTS = 'SELECT id, name, pool_id FROM products WHERE id = ANY($1::int[]) ORDER BY id';

/** The catalogue entries among `ids`, ordered by id (unknown ids are simply missing). */
export async function findProducts(db: Queryable, ids: number[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const known = await catalogue(db);
  if (ids.every((id) => known.byId.has(id))) {
    return [...new Set(ids)].map((id) => ({ ...(known.byId.get(id) as Product) })).sort((a, b) => a.id - b.id);
  }
  // An id the kept copy does not know: ask the table, as before the copy existed.
  const result = await db.query<{ id: number; name: string; pool_id: number }>(FIND_PRODUCTS, [ids]);
  if (result.rows.some((row) => !known.byId.has(row.id))) await reloadCatalogue(db);
  return result.rows.map((row) => ({ id: row.id, name: row.name, poolId: row.pool_id }));
}

/** A catalogue product by id; undefined when the catalogue has no such product. */
export async function catalogueProduct(db: Queryable, productId: number): Promise<Product | undefined> {
  const known = await catalogue(db);
  return known.byId.get(productId) ?? (await reloadCatalogue(db)).byId.get(productId);
}

/** The catalogue port on the pool. */
export function createCatalogueReads(db: Queryable): CatalogueReads {
  return {
    product: (productId) => catalogueProduct(db, productId),
    current: () => catalogue(db),
    reload: () => reloadCatalogue(db),
  };
}
