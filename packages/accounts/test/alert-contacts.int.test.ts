import type { Pool } from 'pg';
import { userTablesPool, anAccount } from '@platform/testing';
import { alertContact, productPool } from '../src';

// The notifier's reads, against the user service's own migrations.

let pool: Pool;
beforeAll(async () => {
  pool = await userTablesPool();
});
afterAll(async () => {
  await pool.end();
});

describe('alertContact', () => {
  it('when the account never saved settings, then its e-mail and no setting (the reader applies its defaults)', async () => {
    const account = await anAccount(pool);
    expect(await alertContact(pool, account.id)).toEqual({
      email: account.email,
      accountEmail: account.email,
      webhookEnabled: false,
      lowBalanceEnabled: null,
      lowBalanceThreshold: null,
      zeroBalanceEnabled: null,
    });
  });

  it('when the account saved settings, then they come with its e-mail', async () => {
    const account = await anAccount(pool);
    await pool.query(
      'INSERT INTO notification_settings (account_id, low_balance_enabled, low_balance_threshold, zero_balance_enabled) VALUES ($1, false, 250, true)',
      [account.id],
    );
    expect(await alertContact(pool, account.id)).toEqual({
      email: account.email,
      accountEmail: account.email,
      webhookEnabled: false,
      lowBalanceEnabled: false,
      lowBalanceThreshold: 250,
      zeroBalanceEnabled: true,
    });
  });

  it('when the settings name an alert e-mail and an enabled webhook, then alerts go there and the webhook is on', async () => {
    const account = await anAccount(pool);
    await pool.query(
      `INSERT INTO notification_settings (account_id, alert_email, webhook_url, webhook_secret) VALUES ($1, 'ops@example.test', 'https://hooks.example.test/', 'whsec_x')`,
      [account.id],
    );
    expect(await alertContact(pool, account.id)).toMatchObject({
      email: 'ops@example.test',
      accountEmail: account.email,
      webhookEnabled: true,
    });
    await pool.query('UPDATE notification_settings SET webhook_enabled = false WHERE account_id = $1', [account.id]);
    expect(await alertContact(pool, account.id)).toMatchObject({ webhookEnabled: false });
  });

  it('when there is no such account, then undefined', async () => {
    expect(await alertContact(pool, 2_000_000_000)).toBeUndefined();
  });
});

describe('productPool', () => {
  it('names the pool of any of its products, lowest product first', async () => {
    const byFirst = await productPool(pool, 1);
    expect(byFirst).toMatchObject({ poolId: 1, productName: 'WHOIS API' });
    expect(byFirst?.products).toEqual(expect.arrayContaining(['WHOIS API', 'Bulk WHOIS API']));
    expect(byFirst?.productIds).toEqual([1, 24]);
    expect(await productPool(pool, 24)).toEqual(byFirst);
  });

  it('when the product is not in the catalogue, then undefined', async () => {
    expect(await productPool(pool, 999_999)).toBeUndefined();
  });
});
