import { readFileSync } from 'node:fs';
import request from 'supertest';
import { Redis } from 'ioredis';
import type pg from 'pg';
import type { RunningService } from '@platform/runtime';
import { createRedisAccessStore, generateAccessToken, type AccessStore } from '@platform/credentials';
import { createPool, migrate } from '@platform/db';
import { userMigrations } from '@platform/user/migrations';
import {
  anAccount,
  silentLogger,
  testServers,
  uniqueId,
  type TestAccount,
  createPrivateDatabase,
  type PrivateDatabase,
} from '@platform/testing';
import { DEFAULT_TAXONOMY_FILE, loadConfig, type CategorizationConfig } from '../src/config';
import type { Category } from '../src/domain/category';
import { runCategorizationService } from '../src/service';

export const ADMIN_TOKEN = `admin-token-for-categorization-${uniqueId()}`;

/** The TSV the service reads, as the tests find it (IAB_TAXONOMY_FILE, else the development default). */
export const TAXONOMY_FILE = process.env.IAB_TAXONOMY_FILE ?? DEFAULT_TAXONOMY_FILE;

/**
 * The topical rows of the TSV, read here with a few lines of code of its own (not the service's
 * parser), so that comparing the served list with it checks the import end to end.
 */
export function topicalRowsOfTsv(): Category[] {
  const rows: Category[] = [];
  for (const line of readFileSync(TAXONOMY_FILE, 'utf8').split(/\r?\n/)) {
    const [id = '', parent = '', name = ''] = line.split('\t');
    if (/^[0-9]+$/.test(id) && Number(id) < 1000) rows.push({ id: `IAB-${id}`, name, parent: parent === '' ? null : `IAB-${parent}` });
  }
  return rows;
}

export interface StartedService {
  service: RunningService;
  config: CategorizationConfig;
}

/** The service in-process on port 0, against the real Postgres and Redis unless told otherwise. */
export async function startService(env: Record<string, string> = {}): Promise<StartedService> {
  const config = loadConfig({
    DATABASE_URL: testServers.databaseUrl,
    REDIS_URL: testServers.redisUrl,
    REDIS_KEY_PREFIX: `test:${uniqueId('cat')}:`,
    ADMIN_TOKEN,
    CATEGORIZATION_PORT: '0',
    IAB_TAXONOMY_FILE: TAXONOMY_FILE,
    ...env,
  });
  const service = await runCategorizationService({ config, logger: silentLogger() });
  return { service, config };
}

/**
 * A database of its own, for tests that must see the categories start empty or must own the
 * version counter; with the user service's tables already in it, as in every deployment (one
 * database, the user service migrated first): category writes append to its audit log.
 */
export async function temporaryDatabase(): Promise<PrivateDatabase> {
  const database = await createPrivateDatabase('categorization');
  const pool = createPool({ connectionString: database.url, logger: silentLogger(), max: 1 });
  try {
    await migrate(pool, [userMigrations], silentLogger());
  } finally {
    await pool.end();
  }
  return database;
}

/** An account with an API key (user service tables, and its access record) and the access store to mint its tokens. */
export interface Credentials {
  pool: pg.Pool;
  access: AccessStore;
  account: TestAccount;
  mintToken(): Promise<string>;
  close(): Promise<void>;
}

export async function credentialsFor(config: CategorizationConfig): Promise<Credentials> {
  const pool = createPool({ connectionString: testServers.databaseUrl, logger: silentLogger(), max: 2 });
  await migrate(pool, [userMigrations], silentLogger());
  const redis = new Redis(testServers.redisUrl);
  const access = createRedisAccessStore(redis, { keyPrefix: config.redisKeyPrefix });
  const account = await anAccount(pool, { credits: { 1: 10 }, access });
  const minted: string[] = [];
  return {
    pool,
    access,
    account,
    async mintToken() {
      const token = generateAccessToken(account.keyHash);
      const issuedAt = Math.floor(Date.now() / 1000);
      const issued = await access.issue({
        keyHash: account.keyHash,
        token,
        issuedAt,
        ttlSeconds: 600,
        limit: { points: 1000, windowSeconds: 60 },
      });
      if (issued.outcome !== 'issued') throw new Error(`token refused: ${issued.outcome}`);
      minted.push(token);
      return token;
    },
    async close() {
      for (const token of minted) await access.revokeToken(token);
      await access.deleteKeys([account.keyHash]);
      await access.close();
      await pool.end();
    },
  };
}

/** XML text escaping as the service's renderer does it. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const ids = (categories: Category[]): string[] => categories.map((category) => category.id);

/** Custom categories a test file creates through the admin API of the service at `url()`; `removeAll` deletes them, newest first. */
export function customCategories(url: () => string): {
  create(name: string, parent: string | null): Promise<Category>;
  /** Keeps a category created some other way, to delete it with the rest. */
  keep(category: Category): void;
  removeAll(): Promise<void>;
} {
  const created: string[] = [];
  return {
    async create(name, parent) {
      const response = await request(url())
        .post('/admin/v1/categories')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ name, parent });
      expect(response.status).toBe(201);
      const category = response.body as Category;
      created.push(category.id);
      return category;
    },
    keep: (category) => void created.push(category.id),
    async removeAll() {
      for (const id of created.splice(0).reverse())
        await request(url()).delete(`/admin/v1/categories/${id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    },
  };
}
