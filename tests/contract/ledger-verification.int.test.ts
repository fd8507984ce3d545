/**
 * CONTRACT §7.1: `pnpm admin verify-ledger [--account ID]`, per pool credits = top-ups and
 * adjustments − charges − open holds; and the usage API's writes (single, batch, reservations,
 * racing) keep it so.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PassThrough } from 'node:stream';
import { uniqueId } from '@platform/testing';
import { runVerifyLedger, type LedgerDifference } from '@platform/user';
import { bearer, serviceJwt, usePlatform } from './support';

const { platform, send, admin, usage } = usePlatform();
const ROOT = path.resolve(__dirname, '../..');

const databaseUrl = (): string => platform.pool.options.connectionString as string;
const internal = (route: string, json: unknown) => send('user', `/internal/v1/usage${route}`, { headers: bearer(serviceJwt()), json });

async function anAccount(credits: number): Promise<{ id: number; apiKey: string }> {
  const reply = await admin('POST', '/admin/v1/accounts', { email: `${uniqueId('ledger')}@example.com`, credits: { 1: credits } });
  return reply.json() as { id: number; apiKey: string };
}

/** The command's JSON report, or its failure's message. */
async function verify(accountId: number): Promise<{ report: unknown; failure: string | undefined }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const failure = await runVerifyLedger(['--account', String(accountId)], { DATABASE_URL: databaseUrl() }, out).then(
    () => undefined,
    (error: Error) => error.message,
  );
  return { report: JSON.parse(text), failure };
}

type Sums = Omit<LedgerDifference, 'accountId' | 'poolId'>;

/** What the command answers for one pool (1) of the account whose credits differ from its ledger. */
function differenceOf(accountId: number, sums: Sums): Awaited<ReturnType<typeof verify>> {
  const { credits, expected, topUps, adjustments, charges, openHolds } = sums;
  return {
    report: { pools: 1, differences: [{ accountId, poolId: 1, ...sums }] },
    failure:
      `credits differ from the ledger in 1 pool(s):\naccount ${accountId} pool 1: credits ${credits}, ledger ${expected} ` +
      `(top-ups ${topUps}, adjustments ${adjustments}, charges ${charges}, open holds ${openHolds})`,
  };
}

describe('§7.1 pnpm admin verify-ledger', () => {
  it('when an account was topped up, adjusted, debited one by one and in batches, and reserved, then its pools verify clean', async () => {
    const account = await anAccount(100);
    await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: 20 });
    await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: -5 });
    const item = (units: number) => ({ credential: account.apiKey, productId: 1, units, requestId: uniqueId('v-') });
    expect((await usage(item(3))).status).toBe(200);
    expect((await internal('/batch', { items: [item(2), item(1)] })).status).toBe(200);
    const held = (await internal('/reservations', item(10))).json() as { reservationId: string };
    const settled = (await internal('/reservations', item(7))).json() as { reservationId: string };
    expect((await internal(`/reservations/${settled.reservationId}/settle`, { units: 4 })).status).toBe(200);
    const released = (await internal('/reservations', item(6))).json() as { reservationId: string };
    expect((await internal(`/reservations/${released.reservationId}/release`, {})).status).toBe(200);
    expect(held.reservationId).toEqual(expect.any(String));
    expect(await verify(account.id)).toEqual({ report: { pools: 1, differences: [] }, failure: undefined });
  });

  it('when a reservation’s return is recorded twice in the ledger, then the holds and returns the ledger sums show the difference', async () => {
    const account = await anAccount(100);
    const item = (units: number) => ({ credential: account.apiKey, productId: 1, units, requestId: uniqueId('v-') });
    expect((await internal('/reservations', item(10))).status).toBe(201);
    const settled = (await internal('/reservations', item(7))).json() as { reservationId: string };
    expect((await internal(`/reservations/${settled.reservationId}/settle`, { units: 4 })).status).toBe(200);
    const released = (await internal('/reservations', item(6))).json() as { reservationId: string };
    expect((await internal(`/reservations/${released.reservationId}/release`, {})).status).toBe(200);
    // 100 − 10 held − 4 charged: the ledger's holds (−23) and returns (+13) leave 10 open.
    expect(await verify(account.id)).toEqual({ report: { pools: 1, differences: [] }, failure: undefined });

    await platform.pool.query(
      "INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause, product_id) VALUES ($1, 1, 6, 92, 'release', 1)",
      [account.id],
    );
    expect(await verify(account.id)).toEqual(
      differenceOf(account.id, { credits: 86, expected: 92, topUps: 100, adjustments: 0, charges: 4, openHolds: 4 }),
    );
  });

  it('when batches and single debits race on one pool, then exactly its credits are granted and the ledger verifies clean', async () => {
    const account = await anAccount(300);
    const item = () => ({ credential: account.apiKey, productId: 1, units: 1, requestId: uniqueId('race-') });
    const batches = Array.from({ length: 8 }, () => internal('/batch', { items: Array.from({ length: 50 }, item) }));
    const singles = Array.from({ length: 100 }, () => usage(item()));
    const replies = await Promise.all([...batches, ...singles]);
    const statuses = replies.flatMap((reply) => {
      const body = reply.json() as { items?: Array<{ status: number }> };
      return body.items ? body.items.map((result) => result.status) : [reply.status];
    });
    expect(statuses.filter((status) => status === 200)).toHaveLength(300);
    expect(await verify(account.id)).toEqual({ report: { pools: 1, differences: [] }, failure: undefined });
  });

  it('when a pool’s credits are changed in SQL behind the ledger, then the difference is reported and the command exits non-zero', async () => {
    const account = await anAccount(50);
    const held = (
      await internal('/reservations', { credential: account.apiKey, productId: 1, units: 8, requestId: uniqueId('v-') })
    ).json() as {
      reservationId: string;
    };
    expect(held.reservationId).toEqual(expect.any(String));
    await platform.pool.query('UPDATE pool_balances SET credits = credits + 5 WHERE account_id = $1', [account.id]);
    expect(await verify(account.id)).toEqual(
      differenceOf(account.id, { credits: 47, expected: 42, topUps: 50, adjustments: 0, charges: 0, openHolds: 8 }),
    );
    const run = promisify(execFile)(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', 'scripts/admin.ts', 'verify-ledger', '--account', String(account.id)],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl() },
      },
    );
    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`account ${account.id} pool 1: credits 47, ledger 42`),
    });
  });
});
