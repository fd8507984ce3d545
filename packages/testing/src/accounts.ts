import type { Pool } from 'pg';
import { accessRecordsOf } from '@platform/accounts';
import { generateApiKey, hashSecret, type AccessWriter } from '@platform/credentials';
import { uniqueId } from './servers';

export interface TestAccount {
  id: number;
  email: string;
  apiKey: string;
  /** SHA-256 of the API key. */
  keyHash: string;
}

export interface AccountOptions {
  /** Product id -> credits of that product's pool. */
  credits?: Record<number, number>;
  email?: string;
  /**
   * The access store the services under test read (CONTRACT §3): the account's key record is
   * written there as the user service writes it when it creates an account. Without it, only
   * Postgres holds the account (as after a Redis loss, before reconciliation).
   */
  access?: AccessWriter;
  /**
   * Also a ledger row (an adjustment) for each seeded pool, so that `verify-ledger` holds on the
   * database, as for an account the admin API creates. Off by default: tests that read the ledger
   * expect only their own rows.
   */
  ledger?: boolean;
}

/** Inserts an account straight into the user service's tables (for tests of other services). */
export async function anAccount(pool: Pool, options: AccountOptions = {}): Promise<TestAccount> {
  const email = options.email ?? `${uniqueId('acct')}@example.test`;
  const apiKey = generateApiKey();
  const keyHash = hashSecret(apiKey);
  const account = await pool.query<{ id: number }>('INSERT INTO accounts (email) VALUES ($1) RETURNING id', [email]);
  const id = (account.rows[0] as { id: number }).id;
  await pool.query('INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)', [id, keyHash]);
  for (const [productId, credits] of Object.entries(options.credits ?? {})) {
    await pool.query(
      `INSERT INTO pool_balances (account_id, pool_id, credits)
       SELECT $1, pool_id, $3 FROM products WHERE id = $2
       ON CONFLICT (account_id, pool_id) DO UPDATE SET credits = EXCLUDED.credits`,
      [id, Number(productId), credits],
    );
    if (options.ledger === true)
      await pool.query(
        `INSERT INTO credit_ledger (account_id, pool_id, delta, credits_after, cause)
         SELECT $1, pool_id, $3, $3, 'adjustment' FROM products WHERE id = $2`,
        [id, Number(productId), credits],
      );
  }
  if (options.access) await options.access.putKeys(await accessRecordsOf(pool, [id]));
  return { id, email, apiKey, keyHash };
}
