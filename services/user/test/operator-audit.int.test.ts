/**
 * The audit log is written in the transaction of the change it describes (issue 29): when the
 * audit row cannot be written, the change does not happen (nor its Redis side), and a change that
 * committed always has its row. The failure is a real Postgres trigger, limited to one account so
 * that nothing else on the shared test database is touched.
 */
import { ADMIN_TOKEN, useHarness } from './harness';

const h = useHarness();

const AUTH = `Bearer ${ADMIN_TOKEN}`;

async function failAuditOf(accountId: number): Promise<() => Promise<void>> {
  const name = `fail_audit_${accountId}`;
  await h.pool.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.account_id = ${accountId} THEN RAISE EXCEPTION 'audit refused for the test'; END IF; RETURN NEW; END $$`);
  await h.pool.query(`CREATE TRIGGER ${name} BEFORE INSERT ON admin_audit FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return async () => {
    await h.pool.query(`DROP TRIGGER ${name} ON admin_audit`);
    await h.pool.query(`DROP FUNCTION ${name}()`);
  };
}

const auditRows = async (accountId: number): Promise<number> =>
  Number((await h.pool.query<{ n: string }>('SELECT count(*) AS n FROM admin_audit WHERE account_id = $1', [accountId])).rows[0]?.n);

describe('audit rows in the transaction of their change', () => {
  it('when the audit row cannot be written, then no disabling, top-up or rotation takes effect, in Postgres or in Redis', async () => {
    const account = await h.account({ 1: 10 });
    const restore = await failAuditOf(account.id);
    try {
      expect((await h.http.patch(`/admin/v1/accounts/${account.id}`).set('Authorization', AUTH).send({ disabled: true })).status).toBe(500);
      expect(
        (await h.http.post(`/admin/v1/accounts/${account.id}/credits`).set('Authorization', AUTH).send({ productId: 1, amount: 5 })).status,
      ).toBe(500);
      expect((await h.http.post(`/admin/v1/accounts/${account.id}/api-key`).set('Authorization', AUTH)).status).toBe(500);
      expect((await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey })).status).toBe(500);
    } finally {
      await restore();
    }
    const shown = await h.http.get(`/admin/v1/accounts/${account.id}`).set('Authorization', AUTH);
    expect(shown.body).toMatchObject({
      disabled: false,
      balances: expect.arrayContaining([expect.objectContaining({ product_id: 1, credits: 10 })]),
    });
    expect((await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey })).status).toBe(200);
    const ledger = await h.pool.query('SELECT 1 FROM credit_ledger WHERE account_id = $1 AND cause <> $2', [account.id, 'usage']);
    expect(ledger.rows).toHaveLength(0); // the fixture's account has no ledger row; the refused top-up left none
    expect(await auditRows(account.id)).toBe(0);
  });

  it('when changes commit, then each has its audit row', async () => {
    const account = await h.account({ 1: 10 });
    await h.http.patch(`/admin/v1/accounts/${account.id}`).set('Authorization', AUTH).send({ disabled: true }).expect(200);
    await h.http.patch(`/admin/v1/accounts/${account.id}`).set('Authorization', AUTH).send({ disabled: false }).expect(200);
    await h.http.post(`/admin/v1/accounts/${account.id}/credits`).set('Authorization', AUTH).send({ productId: 1, amount: 5 }).expect(200);
    await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey }).expect(200);
    expect(await auditRows(account.id)).toBe(4);
  });
});
