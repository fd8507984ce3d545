/**
 * An operator's change that waits for the account's lock acts on the key the holder left
 * current, not on the key that was current when it started waiting: Postgres takes a
 * statement's snapshot before the statement waits, and re-reads only the row it locked. Here the
 * holder is a transaction of the test's own, on another connection, that makes the change a
 * concurrent rotation makes; the operator's request is sent while it holds the lock and answers
 * once it has committed.
 */
import type pg from 'pg';
import { accessRecordsOf } from '@platform/accounts';
import { generateApiKey, hashSecret } from '@platform/credentials';
import { eventually } from '@platform/testing';
import { ADMIN_TOKEN, useHarness } from './harness';

const AUTH = `Bearer ${ADMIN_TOKEN}`;
const h = useHarness();

/**
 * What a rotation commits: the current key replaced by `newKey` (active unless the account is
 * disabled). Written by hand, not through the account transaction's `apply(replaceKey(…))`: that
 * path also writes the access records after its commit, which races the operator's change, and
 * with it the disabling case passed with the old joined statement too.
 */
async function replaceKeyIn(client: pg.PoolClient, accountId: number, newKey: string, active: boolean): Promise<void> {
  await client.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE account_id = $1 AND active', [accountId]);
  await client.query('UPDATE accounts SET key_generation = key_generation + 1 WHERE id = $1', [accountId]);
  await client.query(
    'INSERT INTO api_keys (account_id, key_hash, active, deactivated_at) VALUES ($1, $2, $3, CASE WHEN $3 THEN NULL ELSE now() END)',
    [accountId, hashSecret(newKey), active],
  );
}

/**
 * Holds the account's row while `request` is sent, until the request waits for that lock; then
 * runs `change` and commits. Resolves with the request's answer.
 */
async function whileLocked<T>(
  accountId: number,
  request: () => PromiseLike<T>,
  change: (client: pg.PoolClient) => Promise<void>,
): Promise<T> {
  const client = await h.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    const holder = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const answer = Promise.resolve(request());
    await eventually(
      async () => {
        // Blocked by this transaction, not by another test's that shares the database.
        const waiting = await h.pool.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))', [holder]);
        return waiting.rows.length > 0 ? true : undefined;
      },
      5000,
      "the operator's request to wait for the account's lock",
    );
    await change(client);
    await client.query('COMMIT');
    return await answer;
  } finally {
    client.release();
  }
}

async function activeKeys(accountId: number): Promise<string[]> {
  const result = await h.pool.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE account_id = $1 AND active ORDER BY id', [
    accountId,
  ]);
  return result.rows.map((row) => row.key_hash);
}

describe('an operator change that waits for a rotation', () => {
  it('when an operator rotates a key that a rotation replaced meanwhile, then the rotation replaces the new key: 200, one active key', async () => {
    const account = await h.account({ 1: 10 });
    const rotated = generateApiKey();
    const res = await whileLocked(
      account.id,
      () => h.http.post(`/admin/v1/accounts/${account.id}/api-key`).set('Authorization', AUTH),
      (client) => replaceKeyIn(client, account.id, rotated, true),
    );
    expect(res.status).toBe(200);
    const operatorKey = res.body.apiKey as string;
    expect(await activeKeys(account.id)).toEqual([hashSecret(operatorKey)]);
    expect(await h.access.findKey(hashSecret(rotated))).toBeUndefined();
    expect(await h.access.findKey(hashSecret(operatorKey))).toMatchObject({ accountId: account.id });
  });

  it('when an operator enables an account whose key was rotated meanwhile, then the new key is enabled and the replaced one stays refused', async () => {
    const account = await h.account({ 1: 10 });
    await h.http.patch(`/admin/v1/accounts/${account.id}`).set('Authorization', AUTH).send({ disabled: true }).expect(200);
    const rotated = generateApiKey();
    const res = await whileLocked(
      account.id,
      () => h.http.patch(`/admin/v1/accounts/${account.id}`).set('Authorization', AUTH).send({ disabled: false }),
      (client) => replaceKeyIn(client, account.id, rotated, false),
    );
    expect(res.status).toBe(200);
    expect(await activeKeys(account.id)).toEqual([hashSecret(rotated)]);
    expect(await h.access.findKey(hashSecret(account.apiKey))).toBeUndefined();
    expect(await h.access.findKey(hashSecret(rotated))).toMatchObject({ accountId: account.id });
  });

  it("when an operator disables an account whose key was rotated meanwhile, then the new key's record is removed too", async () => {
    const account = await h.account({ 1: 10 });
    const rotated = generateApiKey();
    const res = await whileLocked(
      account.id,
      () => h.http.patch(`/admin/v1/accounts/${account.id}`).set('Authorization', AUTH).send({ disabled: true }),
      async (client) => {
        await replaceKeyIn(client, account.id, rotated, true);
        // As the rotation writes the new key's record once it has committed.
        await h.access.putKeys(await accessRecordsOf(client, [account.id]));
      },
    );
    expect(res.status).toBe(200);
    expect(await activeKeys(account.id)).toEqual([]);
    expect(await h.access.findKey(hashSecret(rotated))).toBeUndefined();
  });
});
