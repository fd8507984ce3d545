import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPool } from '@platform/db';
import { createPrivateDatabase, silentLogger, type PrivateDatabase } from '@platform/testing';
import { verifyLedger } from './verify-ledger';

const run = promisify(execFile);

describe("the chaos run's verify-ledger", () => {
  let database: PrivateDatabase;
  beforeAll(async () => {
    database = await createPrivateDatabase('chaos_ledger');
    await run(process.execPath, ['--conditions=development', '--import', 'tsx', path.resolve(__dirname, '../migrate.ts')], {
      env: { ...process.env, DATABASE_URL: database.url, DATABASE_DIRECT_URL: '' },
    });
  });
  afterAll(() => database.drop());

  it('passes a pool that matches its ledger, and fails the run naming a pool changed in SQL behind it', async () => {
    const pool = createPool({ connectionString: database.url, logger: silentLogger(), max: 1 });
    try {
      const { rows } = await pool.query<{ id: number }>("INSERT INTO accounts (email) VALUES ('ledger@example.com') RETURNING id");
      const account = rows[0]?.id as number;
      await pool.query('INSERT INTO pool_balances (account_id, pool_id, credits) VALUES ($1, 1, 0)', [account]);
      expect(await verifyLedger(database.url)).toEqual([]);
      await pool.query('UPDATE pool_balances SET credits = 5 WHERE account_id = $1', [account]);
      const failures = await verifyLedger(database.url);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toContain(`account ${account} pool 1: credits 5, ledger 0`);
    } finally {
      await pool.end();
    }
  });
});
