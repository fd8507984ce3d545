import { Redis } from 'ioredis';
import type pg from 'pg';
import request from 'supertest';
import type { Logger, RunningService } from '@platform/runtime';
import { createRedisAccessStore, type AccessStore } from '@platform/credentials';
import { createPool } from '@platform/db';
import { createInProcessEventBus, type EventBus } from '@platform/events';
import {
  anAccount,
  deleteKeys,
  mintAccessToken,
  silentLogger,
  testServers,
  uniqueId,
  useStarted,
  type TestAccount,
} from '@platform/testing';
import { loadConfig, type UserConfig } from '../src/config';
import type { Adapters } from '@platform/infrastructure';
import type { TestNetwork } from '@platform/webhooks';
import { runUserService } from '../src/service';

export const ADMIN_TOKEN = 'user-service-test-admin-token-0123456789';
export const SERVICE_JWT_SECRET = 'user-service-test-jwt-secret-0123456789';
/**
 * Redis keys of these tests live under a prefix of their own, per test file and run: account ids
 * repeat across databases, so a fixed prefix would let another run's key rotation (same Redis,
 * same account id) bump this run's key generations.
 */
export const KEY_PREFIX = `test-user:${uniqueId()}:`;
let running = 0;

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const ACCESS_RESTRICTED = 'Access restricted. Check credits balance or enter the correct API key.';

export function testConfig(overrides: Record<string, string> = {}): UserConfig {
  return loadConfig({
    DATABASE_URL: testServers.databaseUrl,
    REDIS_URL: testServers.redisUrl,
    AMQP_URL: testServers.amqpUrl,
    ADMIN_TOKEN,
    SERVICE_JWT_SECRET,
    USER_PORT: '0',
    REDIS_KEY_PREFIX: KEY_PREFIX,
    // Files share one address and provoke 401s; the admin failure limit has its own test.
    AUTH_FAILURES_PER_IP: '100000',
    ...overrides,
  });
}

/** A user service on port 0 against the real Postgres and Redis, plus direct handles for fixtures. */
export interface Harness {
  service: RunningService;
  http: ReturnType<typeof request>;
  pool: pg.Pool;
  redis: Redis;
  /** The access store on the service's prefix (what the auth service reads). */
  access: AccessStore;
  /**
   * An account inserted straight into the tables (credits: product id -> its pool's credits), its
   * key's access record written as the user service writes it for a new account.
   */
  account(credits?: Record<number, number>, options?: { ledger?: boolean }): Promise<TestAccount>;
  /**
   * A token minted from the account's key as the auth service mints it (written straight to the
   * store, so also for an account whose pools are at 0 now: it was minted before they emptied).
   */
  token(account: { apiKey: string }, ttlSeconds?: number): Promise<string>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  config?: UserConfig;
  /** Adapters of the test's own, used as they are (see openInfrastructure). */
  given?: Partial<Adapters>;
  /** The CA of a test's webhook receiver, trusted by the service's test sends. */
  webhookCa?: string;
  /** The receiver's test network: webhooks go to it with the address rules on. */
  webhookNetwork?: TestNetwork;
  logger?: Logger;
  /**
   * Where the outbox relay publishes. Default: a private in-process bus nobody consumes, so the
   * relay never publishes the shared test database's events to the shared RabbitMQ. `amqp`:
   * the RabbitMQ of the config (AMQP_URL, BALANCE_EXCHANGE); give such a test its own database.
   */
  eventBus?: 'in-process' | 'amqp';
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const logger = options.logger ?? silentLogger();
  const config = options.config ?? testConfig();
  let ownBus: EventBus | undefined;
  if (options.eventBus !== 'amqp' && !options.given?.bus) ownBus = createInProcessEventBus();
  const service = await runUserService({
    config,
    logger,
    given: { ...options.given, ...(ownBus ? { bus: ownBus } : {}) },
    ...(options.webhookCa === undefined ? {} : { webhookCa: options.webhookCa }),
    ...(options.webhookNetwork === undefined ? {} : { webhookNetwork: options.webhookNetwork }),
  }).catch(async (error: unknown) => {
    await ownBus?.close();
    throw error;
  });
  const pool = createPool({ connectionString: config.databaseUrl ?? testServers.databaseUrl, logger, max: 4 });
  const redis = new Redis(testServers.redisUrl);
  const access = options.given?.redis?.access ?? createRedisAccessStore(redis, { keyPrefix: config.redisKeyPrefix });
  running += 1;
  return {
    service,
    http: request(service.url),
    pool,
    redis,
    access,
    account: (credits = {}, options = {}) => anAccount(pool, { credits, access, ...options }),
    token: (account, ttlSeconds) => mintAccessToken({ redis, access, keyPrefix: config.redisKeyPrefix }, account.apiKey, ttlSeconds),
    async stop() {
      running -= 1;
      // The last harness of the file leaves Redis as it found it.
      if (running === 0) await deleteKeys(redis, KEY_PREFIX);
      await service.stop();
      await ownBus?.close();
      await redis.quit();
      await pool.end();
    },
  };
}

/** `{"data":[…]}` item as the balance endpoint renders it. */
export function item(
  productId: number,
  name: string,
  credits: number,
): { product_id: number; product: { id: number; name: string }; credits: number } {
  return { product_id: productId, product: { id: productId, name }, credits };
}

/** A harness for the whole file: started before its tests (its members set then), stopped after them. */
export function useHarness(options: HarnessOptions = {}): Harness {
  return useStarted(() => startHarness(options));
}
