import type { Pool } from 'pg';
import { migrate } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import { generateApiKey, hashSecret } from '@platform/credentials';
import { silentLogger } from './logs';
import { uniqueId } from './servers';

export async function migrateUserSchema(pool: Pool): Promise<void> {
  await migrate(pool, [userMigrations], silentLogger());
}

export interface TestAccount {
  id: number;
  email: string;
  apiKey: string;
}

/**
 * Inserts an account straight into the user service's tables (for tests of other services).
 * `credits` maps a product id to the credits of that product's pool.
 */
export async function anAccount(pool: Pool, options: { credits?: Record<number, number>; email?: string } = {}): Promise<TestAccount> {
  const email = options.email ?? `${uniqueId('acct')}@example.test`;
  const apiKey = generateApiKey();
  const account = await pool.query<{ id: number }>('INSERT INTO accounts (email) VALUES ($1) RETURNING id', [email]);
  const id = (account.rows[0] as { id: number }).id;
  await pool.query('INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)', [id, hashSecret(apiKey)]);
  for (const [productId, credits] of Object.entries(options.credits ?? {})) {
    await pool.query(
      `INSERT INTO pool_balances (account_id, pool_id, credits)
       SELECT $1, pool_id, $3 FROM products WHERE id = $2
       ON CONFLICT (account_id, pool_id) DO UPDATE SET credits = EXCLUDED.credits`,
      [id, Number(productId), credits],
    );
  }
  return { id, email, apiKey };
}
