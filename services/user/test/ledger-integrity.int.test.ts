/**
 * Every ledger row names a pool that its account holds: Postgres refuses any other
 * (foreign_key_violation), checking each statement's new rows together. The rows are inserted
 * straight into the table here, as only write_credit_changes does in the service.
 */
import type pg from 'pg';
import { useHarness } from './harness';

const h = useHarness();

const INSERT = `INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause)
SELECT account_id, pool_id, 1, 1, 'top-up' FROM unnest($1::int[], $2::int[]) AS r(account_id, pool_id)`;

/** Runs `fn` in a transaction that is rolled back: nothing stays in the shared database. */
async function rolledBack<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await h.pool.connect();
  try {
    await client.query('BEGIN');
    return await fn(client);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

const insertRows = (rows: Array<[accountId: number, poolId: number]>) =>
  rolledBack((client) =>
    client.query(INSERT, [rows.map(([accountId]) => accountId), rows.map(([, poolId]) => poolId)]).then((result) => result.rowCount),
  );

describe('credit_ledger rows and the pools they name', () => {
  it('when every row names a pool its account holds, then the rows are written', async () => {
    const account = await h.account({ 1: 5, 7: 5 });
    expect(
      await insertRows([
        [account.id, 1],
        [account.id, 7],
        [account.id, 1],
      ]),
    ).toBe(3);
  });

  it.each([
    [
      'a pool that its account does not hold',
      (accountId: number) =>
        [
          [accountId, 1],
          [accountId, 7],
        ] as Array<[number, number]>,
    ],
    [
      'an account that does not exist',
      (accountId: number) =>
        [
          [accountId, 1],
          [accountId + 1_000_000, 1],
        ] as Array<[number, number]>,
    ],
  ])('when one row of a statement names %s, then the statement is refused with foreign_key_violation', async (_case, rows) => {
    const account = await h.account({ 1: 5 });
    await expect(insertRows(rows(account.id))).rejects.toMatchObject({
      code: '23503',
      message: 'a credit_ledger row names a pool that its account does not hold',
    });
  });
});
