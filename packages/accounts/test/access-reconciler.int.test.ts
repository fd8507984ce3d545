import type { Pool } from 'pg';
import { userTablesPool, anAccount, testServers } from '@platform/testing';
import { createMemoryAccessStore, generateApiKey, hashSecret, type AccessStore } from '@platform/credentials';
import { activeKeysForUpdate, reconcileAccount, reconcileAll } from '../src';

// Reconciliation against the real Postgres (the user service's tables), on the memory store.

let pool: Pool;
let access: AccessStore;
beforeAll(async () => {
  pool = await userTablesPool(testServers.databaseUrl, 4);
});
beforeEach(() => {
  access = createMemoryAccessStore();
});
afterEach(async () => {
  await access.close();
});
afterAll(async () => {
  await pool.end();
});

async function rotateInPostgres(accountId: number): Promise<string> {
  const newKeyHash = hashSecret(generateApiKey());
  await pool.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE account_id = $1 AND active', [accountId]);
  await pool.query('INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)', [accountId, newKeyHash]);
  await pool.query('UPDATE accounts SET key_generation = key_generation + 1 WHERE id = $1', [accountId]);
  return newKeyHash;
}

describe('reconcileAll', () => {
  test('when Redis holds stale records (a restored snapshot), then they are made to agree with Postgres', async () => {
    const rotated = await anAccount(pool, { credits: { 1: 10 } });
    const emptied = await anAccount(pool, { credits: { 1: 10, 7: 0 } });
    const untouched = await anAccount(pool, { credits: { 14: 5 } });
    // What the snapshot held: every key active with credits, generation 0.
    for (const account of [rotated, emptied, untouched]) {
      await access.putKeys([{ keyHash: account.keyHash, accountId: account.id, generation: 0, creditedPools: [1] }]);
    }
    // What happened since, in Postgres.
    const newKeyHash = await rotateInPostgres(rotated.id);
    await pool.query('UPDATE pool_balances SET credits = 0 WHERE account_id = $1', [emptied.id]);

    const report = await reconcileAll(pool, access, 50);
    expect(report.activeKeys).toBeGreaterThanOrEqual(4);

    expect(await access.findKey(rotated.keyHash)).toBeUndefined();
    expect(await access.findKey(newKeyHash)).toEqual({ accountId: rotated.id, generation: 1, hasCredits: true });
    expect(await access.findKey(emptied.keyHash)).toEqual({ accountId: emptied.id, generation: 0, hasCredits: false });
    expect(await access.findKey(untouched.keyHash)).toEqual({ accountId: untouched.id, generation: 0, hasCredits: true });
  });

  test('when a writer holds an account (changed a pool, wrote its record, not committed), then reconciliation waits and keeps its change', async () => {
    const account = await anAccount(pool, { credits: { 1: 10 }, access });
    const writer = await pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('UPDATE pool_balances SET credits = 0 WHERE account_id = $1', [account.id]);
      await access.setPoolCredit(await activeKeysForUpdate(writer, account.id), 1, false);
      let done = false;
      const reconciling = reconcileAccount(pool, access, account.id).then(() => {
        done = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(done).toBe(false);
      await writer.query('COMMIT');
      await reconciling;
    } finally {
      writer.release();
    }
    // Read before the commit it would have put the credits back.
    expect(await access.findKey(account.keyHash)).toMatchObject({ hasCredits: false });
  });

  test('when a writer failed after its write (rolled back), then reconciling the account undoes the write', async () => {
    const account = await anAccount(pool, { credits: { 1: 10 }, access });
    await access.setPoolCredit([account.keyHash], 1, false);
    await reconcileAccount(pool, access, account.id);
    expect(await access.findKey(account.keyHash)).toMatchObject({ hasCredits: true });
  });
});
