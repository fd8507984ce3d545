import type { Queryable } from '@platform/db';
import { productBalances, readBalances, readPoolCreditsBatched, readPoolCreditsByKeyBatched, readProductBalance } from './balances';
import { findProducts, keptCatalogue } from './catalogue';

const PRODUCTS = [
  { id: 1, name: 'WHOIS API', pool_id: 1 },
  { id: 7, name: 'Email Verification API', pool_id: 7 },
  { id: 14, name: 'Domain Research Suite', pool_id: 14 },
  { id: 24, name: 'Bulk WHOIS API', pool_id: 1 },
  { id: 27, name: 'Screenshot API', pool_id: 14 },
];

/** Pools per account and the account of each active key, as the tables would answer. */
const POOLS: Record<number, Array<{ pool_id: number; credits: number }>> = {
  1: [
    { pool_id: 14, credits: 50 },
    { pool_id: 1, credits: 4837993 },
  ],
  2: [{ pool_id: 7, credits: 0 }],
  3: [],
};
const KEYS: Record<string, number> = { h1: 1, h2: 2, h3: 3 };

type QueryConfig = string | { name?: string; text: string; values?: unknown[] };

/** A fake pool answering the store's queries from the tables above, recording each query. */
function fakeDb(products = PRODUCTS): Queryable & { queries: Array<{ text: string; values: unknown[] }>; fail?: Error } {
  const db = {
    queries: [] as Array<{ text: string; values: unknown[] }>,
    fail: undefined as Error | undefined,
    query(config: QueryConfig, params?: unknown[]) {
      const text = typeof config === 'string' ? config : config.text;
      const values = (typeof config === 'string' ? params : config.values) ?? [];
      db.queries.push({ text, values });
      if (db.fail) return Promise.reject(db.fail);
      let rows: unknown[] = [];
      if (text.includes('FROM products ORDER BY id')) rows = products;
      else if (text.includes('FROM products WHERE id = ANY'))
        rows = products.filter((product) => (values[0] as number[]).includes(product.id));
      else if (text.includes('FROM api_keys k')) {
        rows = (values[0] as string[]).flatMap((hash): unknown[] => {
          const accountId = KEYS[hash];
          if (accountId === undefined) return [];
          const pools = POOLS[accountId] ?? [];
          return pools.length === 0
            ? [{ key_hash: hash, account_id: accountId, pool_id: null, credits: null }]
            : pools.map((pool) => ({ key_hash: hash, account_id: accountId, ...pool }));
        });
      } else if (text.includes('account_id = ANY')) {
        rows = (values[0] as number[]).flatMap((accountId) => (POOLS[accountId] ?? []).map((pool) => ({ account_id: accountId, ...pool })));
      } else if (text.includes('AND pool_id = $2')) {
        rows = (POOLS[values[0] as number] ?? []).filter((pool) => pool.pool_id === values[1]).map((pool) => ({ credits: pool.credits }));
      } else if (text.includes('WHERE account_id = $1')) {
        rows = POOLS[values[0] as number] ?? [];
      }
      return Promise.resolve({ rows, rowCount: rows.length });
    },
  };
  return db as unknown as Queryable & { queries: Array<{ text: string; values: unknown[] }>; fail?: Error };
}

describe('balance reads', () => {
  test('when an account holds pools, then every product of them is listed by id with its pool’s credits', async () => {
    const db = fakeDb();
    const kept = keptCatalogue();
    expect(await readBalances(db, kept, 1)).toEqual([
      { productId: 1, productName: 'WHOIS API', credits: 4837993 },
      { productId: 14, productName: 'Domain Research Suite', credits: 50 },
      { productId: 24, productName: 'Bulk WHOIS API', credits: 4837993 },
      { productId: 27, productName: 'Screenshot API', credits: 50 },
    ]);
    expect(await readBalances(db, kept, 3)).toEqual([]);
  });

  test('when one product is asked for, then unknown, not held and held are told apart', async () => {
    const db = fakeDb();
    const kept = keptCatalogue();
    expect(await readProductBalance(db, kept, 1, 24)).toEqual({
      product: 'known',
      balance: { productId: 24, productName: 'Bulk WHOIS API', credits: 4837993 },
    });
    expect(await readProductBalance(db, kept, 1, 7)).toEqual({ product: 'known', balance: undefined });
    expect(await readProductBalance(db, kept, 1, 999)).toEqual({ product: 'unknown' });
  });

  test('when a pool is not in the kept catalogue, then the catalogue is read again', async () => {
    const db = fakeDb();
    const kept = keptCatalogue();
    await productBalances(db, kept, [{ poolId: 1, credits: 1 }]);
    const withNewProduct = fakeDb([...PRODUCTS, { id: 200, name: 'New API', pool_id: 200 }]);
    expect(await productBalances(withNewProduct, kept, [{ poolId: 200, credits: 3 }])).toEqual([
      { productId: 200, productName: 'New API', credits: 3 },
    ]);
    expect(await findProducts(kept, withNewProduct, [200, 1])).toEqual([
      { id: 1, name: 'WHOIS API', poolId: 1 },
      { id: 200, name: 'New API', poolId: 200 },
    ]);
  });

  test('when products are looked up, then known ones come from the kept catalogue, unknown ones from the table', async () => {
    const db = fakeDb();
    const kept = keptCatalogue();
    await productBalances(db, kept, [{ poolId: 1, credits: 1 }]);
    db.queries.length = 0;
    expect(await findProducts(kept, db, [24, 1, 24])).toEqual([
      { id: 1, name: 'WHOIS API', poolId: 1 },
      { id: 24, name: 'Bulk WHOIS API', poolId: 1 },
    ]);
    expect(db.queries).toEqual([]);
    expect(await findProducts(kept, db, [1, 555])).toEqual([{ id: 1, name: 'WHOIS API', poolId: 1 }]);
    expect(db.queries).toHaveLength(1);
  });

  test('when a known product’s pool changes in the table, then the kept catalogue answers the old pool until a miss reads it again', async () => {
    const kept = keptCatalogue();
    await findProducts(kept, fakeDb(), [24]);
    const moved = PRODUCTS.map((product) => (product.id === 24 ? { ...product, pool_id: 7 } : product));
    const movedDb = fakeDb([...moved, { id: 200, name: 'New API', pool_id: 200 }]);
    expect(await findProducts(kept, movedDb, [24])).toEqual([{ id: 24, name: 'Bulk WHOIS API', poolId: 1 }]);
    await findProducts(kept, movedDb, [200]);
    expect(await findProducts(kept, movedDb, [24])).toEqual([{ id: 24, name: 'Bulk WHOIS API', poolId: 7 }]);
  });

  test('when two apps keep catalogues of two databases, then neither answers from the other’s', async () => {
    await findProducts(keptCatalogue(), fakeDb(), [1]);
    const other = fakeDb([{ id: 1, name: 'Other API', pool_id: 1 }]);
    expect(await findProducts(keptCatalogue(), other, [1])).toEqual([{ id: 1, name: 'Other API', poolId: 1 }]);
  });
});

describe('batched balance reads', () => {
  test('when several accounts are read in one turn, then one query answers each with its own pools', async () => {
    const db = fakeDb();
    const [one, two, three, oneAgain] = await Promise.all([
      readPoolCreditsBatched(db, 1),
      readPoolCreditsBatched(db, 2),
      readPoolCreditsBatched(db, 3),
      readPoolCreditsBatched(db, 1),
    ]);
    expect(db.queries).toHaveLength(1);
    expect(db.queries[0]?.values).toEqual([[1, 2, 3]]);
    expect(one).toEqual([
      { poolId: 14, credits: 50 },
      { poolId: 1, credits: 4837993 },
    ]);
    expect(oneAgain).toEqual(one);
    expect(two).toEqual([{ poolId: 7, credits: 0 }]);
    expect(three).toEqual([]);
  });

  test('when keys are read in one turn, then one query checks them all: unknown, without pools, with pools', async () => {
    const db = fakeDb();
    const [unknown, noPools, withPools] = await Promise.all([
      readPoolCreditsByKeyBatched(db, 'nope'),
      readPoolCreditsByKeyBatched(db, 'h3'),
      readPoolCreditsByKeyBatched(db, 'h2'),
    ]);
    expect(db.queries).toHaveLength(1);
    expect(unknown).toBeUndefined();
    expect(noPools).toEqual({ accountId: 3, pools: [] });
    expect(withPools).toEqual({ accountId: 2, pools: [{ poolId: 7, credits: 0 }] });
  });

  test('when reads come in later turns, then each turn has its own query', async () => {
    const db = fakeDb();
    await readPoolCreditsBatched(db, 1);
    await readPoolCreditsBatched(db, 2);
    expect(db.queries).toHaveLength(2);
  });

  test('when the query fails, then every read of the batch fails with its error', async () => {
    const db = fakeDb();
    db.fail = new Error('Connection terminated unexpectedly');
    const reads = [readPoolCreditsBatched(db, 1), readPoolCreditsBatched(db, 2), readPoolCreditsByKeyBatched(db, 'h1')];
    for (const read of reads) await expect(read).rejects.toThrow('Connection terminated unexpectedly');
  });

  test('when more accounts than a batch holds are read at once, then they are split over several queries', async () => {
    const db = fakeDb();
    const ids = Array.from({ length: 250 }, (_, index) => 1000 + index);
    const answers = await Promise.all(ids.map((id) => readPoolCreditsBatched(db, id)));
    expect(answers.every((pools) => pools.length === 0)).toBe(true);
    expect(db.queries.map((query) => (query.values[0] as number[]).length)).toEqual([100, 100, 50]);
  });

  test('when an account id is outside the column’s range, then it is read on its own', async () => {
    const db = fakeDb();
    await Promise.all([readPoolCreditsBatched(db, 1), readPoolCreditsBatched(db, 2 ** 40)]);
    expect(db.queries.map((query) => query.values)).toEqual([[2 ** 40], [[1]]]);
  });
});
