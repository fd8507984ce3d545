import { Redis } from 'ioredis';
import type pg from 'pg';
import { ConfigError, type Logger } from '@platform/common';
import {
  createCredentialVerifier,
  createKeyDirectory,
  createRedisTokenStore,
  type CredentialVerifier,
  type TokenStore,
} from '@platform/credentials';
import { createPool } from '@platform/db';
import type { UserConfig } from './config';

/** Connections the embedded quickstart shares with the service instead of letting it open its own. */
export interface ProvidedDeps {
  pool?: pg.Pool;
  tokens?: TokenStore;
}

export interface UserDeps {
  logger: Logger;
  pool: pg.Pool;
  tokens: TokenStore;
  credentials: CredentialVerifier;
  /** Closes only what createDeps opened itself. */
  close(): Promise<void>;
}

// A Redis outage must turn into a quick 503, not a request that hangs while ioredis reconnects.
const REDIS_COMMAND_TIMEOUT_MS = 2000;

function openRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
  redis.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  return redis;
}

/** The only place the user service opens Postgres and Redis connections. */
export function createDeps(config: UserConfig, logger: Logger, provided: ProvidedDeps = {}): UserDeps {
  const missing: string[] = [];
  if (!provided.pool && config.databaseUrl === undefined) missing.push('DATABASE_URL: Required');
  if (!provided.tokens && config.redisUrl === undefined) missing.push('REDIS_URL: Required');
  if (missing.length > 0) throw new ConfigError(`invalid configuration: ${missing.join('; ')}`);

  const closers: Array<() => Promise<void>> = [];
  let pool = provided.pool;
  if (!pool) {
    const opened = createPool({ connectionString: config.databaseUrl as string, logger });
    closers.push(() => opened.end());
    pool = opened;
  }
  let tokens = provided.tokens;
  if (!tokens) {
    const redis = openRedis(config.redisUrl as string, logger);
    const opened = createRedisTokenStore(redis, { keyPrefix: config.redisKeyPrefix });
    closers.push(async () => {
      await opened.close();
      // QUIT waits for a reachable server; during an outage, also drop pending commands and reconnect timers.
      redis.disconnect();
    });
    tokens = opened;
  }
  const credentials = createCredentialVerifier({ keys: createKeyDirectory(pool), tokens });
  return {
    logger,
    pool,
    tokens,
    credentials,
    async close() {
      for (const close of closers.reverse()) {
        try {
          await close();
        } catch (error) {
          logger.warn('error while closing a connection', { error });
        }
      }
    },
  };
}
