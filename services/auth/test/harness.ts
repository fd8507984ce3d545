import { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { Logger, RunningService } from '@platform/common';
import { createRedisTokenStore, type TokenStore } from '@platform/credentials';
import { createPool } from '@platform/db';
import { migrateUserSchema, silentLogger, testServers, uniqueId, deleteKeys } from '@platform/testing';
import { loadConfig, startAuthService, type ProvidedDeps } from '../src';

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
  /** The token store on the service's prefix, as the user service would use it (bumpGeneration). */
  tokens: TokenStore;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Postgres URL of the service's pool (e.g. through a TCP proxy); default the test server. */
  databaseUrl?: string;
  logger?: Logger;
  provided?: Omit<ProvidedDeps, 'pool'>;
}

/** A Postgres pool on the test database, with the user schema migrated. */
export async function testPool(databaseUrl = testServers.databaseUrl): Promise<Pool> {
  const pool = createPool({ connectionString: databaseUrl, logger: silentLogger(), max: 5 });
  await migrateUserSchema(pool);
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
  const service = await startAuthService({ config, logger: options.logger ?? silentLogger(), provided: { pool, ...options.provided } });
  const redis = new Redis(testServers.redisUrl);
  const tokens = createRedisTokenStore(new Redis(testServers.redisUrl), { keyPrefix: prefix });
  return {
    url: service.url,
    service,
    pool,
    redis,
    prefix,
    tokens,
    async close() {
      await service.stop();
      await deleteKeys(redis, prefix);
      await tokens.close();
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
 * A key rotation as the user service performs it (CONTRACT §3): lock the key and account rows,
 * bump the generation in Redis, then replace the key and record the generation, in one transaction.
 */
export async function rotateKey(harness: AuthHarness, accountId: number, newKeyHash: string): Promise<number> {
  const client = await harness.pool.connect();
  try {
    await client.query('BEGIN');
    const locked = await client.query<{ key_generation: string }>(
      'SELECT a.key_generation FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.account_id = $1 AND k.active FOR UPDATE',
      [accountId],
    );
    const generation = await harness.tokens.bumpGeneration(accountId, Number(locked.rows[0]?.key_generation ?? 0) + 1);
    await client.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE account_id = $1 AND active', [accountId]);
    await client.query('INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)', [accountId, newKeyHash]);
    await client.query('UPDATE accounts SET key_generation = GREATEST(key_generation, $2) WHERE id = $1', [accountId, generation]);
    await client.query('COMMIT');
    return generation;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
