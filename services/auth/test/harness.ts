import { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { Logger, RunningService } from '@platform/runtime';
import { accessRecordsOf } from '@platform/accounts';
import { accessLayout, createRedisAccessStore, hashSecret, tokenShardTag, type AccessStore } from '@platform/credentials';
import { createPool, migrate } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import {
  anAccount,
  silentLogger,
  testServers,
  uniqueId,
  deleteKeys,
  useStarted,
  type AccountOptions,
  type TestAccount,
} from '@platform/testing';
import { loadConfig, runAuthService } from '../src';

export const ADMIN_TOKEN = 'admin-token-for-auth-tests-0123456789';
export const SERVICE_JWT_SECRET = 'service-jwt-secret-for-auth-tests-0123456789';
/** AUTH_URL of the harness's services: the issuer the metadata names. */
export const ISSUER = 'https://auth.issuer.test';

/** One in-process auth service on port 0 against the real Postgres and Redis, with its own Redis key prefix. */
export interface AuthHarness {
  url: string;
  service: RunningService;
  pool: Pool;
  /** A separate client on the same Redis, for inspecting and ageing keys. */
  redis: Redis;
  prefix: string;
  /** The access store on the service's prefix, as the user service writes it. */
  access: AccessStore;
  /** An account in Postgres with its key's access record written, as the user service creates one. */
  account(options?: Omit<AccountOptions, 'access'>): Promise<TestAccount>;
  /** The Redis key of a token. */
  tokenKey(token: string): string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Variables over the harness's own; an undefined one is left unset (e.g. ADMIN_TOKEN). */
  env?: Record<string, string | undefined>;
  /** Postgres URL of the service's pool (e.g. through a TCP proxy); default the test server. */
  databaseUrl?: string;
  logger?: Logger;
  /** The pool the service is given, made from the harness's own (e.g. one that counts queries). */
  wrapPool?: (pool: Pool) => Pool;
}

/** A Postgres pool on the test database, with the user schema migrated. */
export async function testPool(databaseUrl = testServers.databaseUrl): Promise<Pool> {
  const pool = createPool({ connectionString: databaseUrl, logger: silentLogger(), max: 5 });
  await migrate(pool, [userMigrations], silentLogger());
  return pool;
}

export async function startAuth(options: HarnessOptions = {}): Promise<AuthHarness> {
  const pool = await testPool(options.databaseUrl);
  const prefix = `test:auth:${uniqueId()}:`;
  const config = loadConfig({
    DATABASE_URL: testServers.databaseUrl,
    REDIS_URL: testServers.redisUrl,
    REDIS_KEY_PREFIX: prefix,
    ADMIN_TOKEN,
    SERVICE_JWT_SECRET,
    AUTH_PORT: '0',
    AUTH_URL: ISSUER,
    // Most files provoke many 401s from one address; the limit has its own tests.
    AUTH_FAILURES_PER_IP: '100000',
    TOKEN_RATE_PER_ACCOUNT: '100000',
    LOG_LEVEL: 'error',
    ...options.env,
  });
  const service = await runAuthService({
    config,
    logger: options.logger ?? silentLogger(),
    given: { pool: options.wrapPool?.(pool) ?? pool },
  });
  const redis = new Redis(testServers.redisUrl);
  const access = createRedisAccessStore(new Redis(testServers.redisUrl), { keyPrefix: prefix });
  const layout = accessLayout(prefix);
  return {
    url: service.url,
    service,
    pool,
    redis,
    prefix,
    access,
    account: (accountOptions = {}) => anAccount(pool, { ...accountOptions, access }),
    tokenKey: (token) => layout.token(tokenShardTag(token), hashSecret(token)),
    async close() {
      await service.stop();
      await deleteKeys(redis, prefix);
      await access.close();
      await redis.quit();
      await pool.end();
    },
  };
}

/** The seed's Authorization header: Bearer + standard Base64 of the key. */
export function bearerOf(apiKey: string): string {
  return `Bearer ${Buffer.from(apiKey).toString('base64')}`;
}

export function basicOf(clientId: number | string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

/**
 * A key rotation as the user service performs it (CONTRACT §3): in one transaction, lock the key
 * and account rows, replace the key and raise the generation, then, before the commit, remove the
 * old key's access record and write the new one.
 */
export async function rotateKey(harness: AuthHarness, account: TestAccount, newKeyHash: string): Promise<void> {
  const client = await harness.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1 AND k.active FOR UPDATE', [
      account.keyHash,
    ]);
    await client.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE account_id = $1 AND active', [account.id]);
    await client.query('INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)', [account.id, newKeyHash]);
    await client.query('UPDATE accounts SET key_generation = key_generation + 1 WHERE id = $1', [account.id]);
    await harness.access.deleteKeys([account.keyHash]);
    await harness.access.putKeys(await accessRecordsOf(client, [account.id]));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** The OAuth error of a refused credential (RFC 6749 §5.2), in the contract's sentence. */
export const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description: 'Access restricted. Check credits balance or enter the correct API key.',
};

/** The auth service for the whole file: started before its tests (its members set then), closed after them. */
export function useAuth(options: HarnessOptions = {}): AuthHarness {
  return useStarted(() => startAuth(options));
}
