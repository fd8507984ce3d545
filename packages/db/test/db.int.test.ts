import { createPool, migrate, withTransaction } from '@platform/db';
import { categorizationMigrations } from '@platform/categorization/migrations';
import { notifierMigrations } from '@platform/notifier/migrations';
import { userMigrations } from '@platform/user/migrations';
import { createPrivateDatabase, silentLogger, type PrivateDatabase } from '@platform/testing';

describe('migrations and transactions on a database of their own', () => {
  let database: PrivateDatabase;

  beforeAll(async () => {
    database = await createPrivateDatabase('db');
  });

  afterAll(async () => {
    await database.drop();
  });

  it('when several processes migrate the same database at once, then all succeed and each migration is applied once', async () => {
    const pools = [1, 2, 3].map(() => createPool({ connectionString: database.url, max: 1, logger: silentLogger() }));
    try {
      await Promise.all(pools.map((pool) => migrate(pool, [userMigrations, categorizationMigrations, notifierMigrations], silentLogger())));
      const history = await pools[0]?.query<{ name: string; runs: number }>(
        'SELECT name, count(*)::int AS runs FROM pgmigrations_user GROUP BY name',
      );
      expect(history?.rows.length).toBeGreaterThan(0);
      for (const row of history?.rows ?? []) expect(row.runs).toBe(1);
      const products = await pools[0]?.query<{ count: number }>('SELECT count(*)::int AS count FROM products');
      expect(products?.rows[0]?.count).toBe(40);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('when a transaction fails, then nothing of it is kept and the pool stays usable', async () => {
    const pool = createPool({ connectionString: database.url, max: 1, logger: silentLogger() });
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS tx_probe (value int)');
      await expect(
        withTransaction(pool, async (client) => {
          await client.query('INSERT INTO tx_probe VALUES (1)');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await withTransaction(pool, (client) => client.query('INSERT INTO tx_probe VALUES (2)'));
      const rows = await pool.query<{ value: number }>('SELECT value FROM tx_probe');
      expect(rows.rows).toEqual([{ value: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it('when bigint columns are read, then they arrive as numbers', async () => {
    const pool = createPool({ connectionString: database.url, max: 1, logger: silentLogger() });
    try {
      const result = await pool.query<{ big: unknown }>('SELECT 4837993::bigint AS big');
      expect(result.rows[0]?.big).toBe(4837993);
    } finally {
      await pool.end();
    }
  });
});
