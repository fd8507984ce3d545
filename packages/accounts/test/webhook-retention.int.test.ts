import type { Pool } from 'pg';
import { userTablesPool, anAccount, uniqueId } from '@platform/testing';
import { recordWebhookAttempt, WEBHOOK_HISTORY_KEPT } from '../src';

// Issue 45 L9: webhook_deliveries (bodies included) is swept with the attempts' retention.

let pool: Pool;
beforeAll(async () => {
  pool = await userTablesPool();
});
afterAll(async () => {
  await pool.end();
});

type State = 'delivered' | 'given up' | 'pending';

/** Queues `count` deliveries for the account in `state`, finished (or created) `hoursAgo` hours ago. */
async function deliveries(accountId: number, count: number, state: State, hoursAgo: number): Promise<void> {
  const at = `now() - ${hoursAgo} * interval '1 hour'`;
  const delivered = state === 'delivered' ? at : 'NULL';
  const givenUp = state === 'given up' ? at : 'NULL';
  await pool.query(
    `INSERT INTO webhook_deliveries (webhook_id, account_id, type, body, delivered_at, given_up_at, created_at)
     SELECT $1 || n, $2, 'balance.low', '{"secret":"body"}', ${delivered}, ${givenUp}, ${at} FROM generate_series(1, $3) n`,
    [`msg_${uniqueId()}_`, accountId, count],
  );
}

const counts = async (accountId: number): Promise<Record<string, number>> => {
  const result = await pool.query<{ state: State; count: string }>(
    `SELECT CASE WHEN delivered_at IS NOT NULL THEN 'delivered' WHEN given_up_at IS NOT NULL THEN 'given up' ELSE 'pending' END AS state,
            count(*) FROM webhook_deliveries WHERE account_id = $1 GROUP BY 1`,
    [accountId],
  );
  return Object.fromEntries(result.rows.map((row) => [row.state, Number(row.count)]));
};

const attempt = (accountId: number) =>
  recordWebhookAttempt(pool, {
    accountId,
    webhookId: `msg_${uniqueId()}`,
    type: 'balance.low',
    status: 200,
    error: undefined,
    nextRetryAt: undefined,
  });

describe('webhook delivery retention', () => {
  it('when an account has more finished deliveries than the attempts keep, then an attempt sweeps all but the newest 50; pending ones stay', async () => {
    const account = await anAccount(pool);
    await deliveries(account.id, 3, 'pending', 72);
    await deliveries(account.id, 30, 'given up', 72);
    await deliveries(account.id, 40, 'delivered', 48);
    await attempt(account.id);
    expect(await counts(account.id)).toEqual({ pending: 3, delivered: 40, 'given up': WEBHOOK_HISTORY_KEPT - 40 });
  });

  it('when the extra finished deliveries ended within the last 24 hours, then they stay until they are older', async () => {
    const account = await anAccount(pool);
    await deliveries(account.id, 60, 'delivered', 1);
    await attempt(account.id);
    expect(await counts(account.id)).toEqual({ delivered: 60 });
  });

  it('when another account has many deliveries, then this account’s attempt leaves them alone', async () => {
    const [busy, other] = [await anAccount(pool), await anAccount(pool)];
    await deliveries(busy.id, 55, 'delivered', 48);
    await attempt(other.id);
    expect(await counts(busy.id)).toEqual({ delivered: 55 });
  });
});
