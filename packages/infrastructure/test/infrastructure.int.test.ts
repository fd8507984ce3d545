import { ConfigError } from '@platform/runtime';
import { createMemoryAccessStore } from '@platform/credentials';
import { createPool, REQUEST_TIMEOUTS } from '@platform/db';
import { createInProcessEventBus } from '@platform/events';
import { silentLogger, testServers, uniqueId } from '@platform/testing';
import { openInfrastructure } from '../src';

const logger = silentLogger();

describe('openInfrastructure', () => {
  it('when URLs are missing and nothing is embedded, then one ConfigError names every variable the needs call for', async () => {
    const opening = openInfrastructure({}, { name: 'test', logger, needs: ['pool', 'usagePool', 'redis', 'bus', 'mailer'] });
    await expect(opening).rejects.toThrow(ConfigError);
    await expect(opening).rejects.toThrow(
      'invalid configuration: DATABASE_URL: Required; REDIS_URL: Required; AMQP_URL: Required; SMTP_URL: Required',
    );
  });

  it('when the URLs are set, then it opens real adapters, only those needed, and close() closes them', async () => {
    const config = { databaseUrl: testServers.databaseUrl, redisUrl: testServers.redisUrl, redisKeyPrefix: `${uniqueId('test-infra:')}:` };
    const infrastructure = await openInfrastructure(config, { name: 'test', logger, needs: ['pool', 'redis'] });
    expect(Object.keys(infrastructure).sort()).toEqual(['close', 'embedded', 'pool', 'redis']);
    expect(infrastructure.embedded).toEqual([]);
    expect((await infrastructure.pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(await infrastructure.redis.client?.ping()).toBe('PONG');
    await infrastructure.close();
    await expect(infrastructure.pool.query('SELECT 1')).rejects.toThrow();
    await expect(infrastructure.redis.client?.ping()).rejects.toThrow(/Connection is closed/);
    await infrastructure.close();
  });

  it('when DATABASE_POOL_MAX is set, then the process opens that many connections at most, the usage lanes out of it', async () => {
    const config = { databaseUrl: testServers.databaseUrl, databasePoolMax: 4 };
    const infrastructure = await openInfrastructure(config, {
      name: 'test',
      logger,
      needs: ['pool', 'usagePool', 'directPool'],
      usagePoolMax: 1,
    });
    try {
      expect(infrastructure.pool.options.max).toBe(3);
      expect(infrastructure.usagePool.options.max).toBe(1);
      // Without DATABASE_DIRECT_URL the migrations get one connection of their own on DATABASE_URL,
      // without the requests' query timeout (they may wait for another replica's migration lock).
      expect(infrastructure.directPool).not.toBe(infrastructure.pool);
      expect(infrastructure.directPool.options).toMatchObject({ max: 1, idleTimeoutMillis: 1000 });
      expect(infrastructure.directPool.options.query_timeout).toBeUndefined();
      expect(infrastructure.pool.options).toMatchObject({
        query_timeout: REQUEST_TIMEOUTS.queryMs,
        connectionTimeoutMillis: REQUEST_TIMEOUTS.checkoutMs,
      });
      expect(infrastructure.usagePool.options.query_timeout).toBe(REQUEST_TIMEOUTS.queryMs);
    } finally {
      await infrastructure.close();
    }
    const auth = await openInfrastructure(config, { name: 'test', logger, needs: ['pool'], poolMax: 2 });
    expect(auth.pool.options.max).toBe(2);
    await auth.close();
    await expect(
      openInfrastructure({ ...config, databasePoolMax: 2 }, { name: 'test', logger, needs: ['pool', 'usagePool'], usagePoolMax: 2 }),
    ).rejects.toThrow("invalid configuration: DATABASE_POOL_MAX: must be more than the usage pool's 2 connections (USAGE_BATCH_LANES)");
  });

  it('when DATABASE_DIRECT_URL is set, then the migrations get a pool of their own on it, of one connection', async () => {
    const direct = new URL(testServers.databaseUrl);
    direct.searchParams.set('application_name', 'direct');
    const infrastructure = await openInfrastructure(
      { databaseUrl: testServers.databaseUrl, databaseDirectUrl: direct.toString() },
      { name: 'test', logger, needs: ['pool', 'directPool'] },
    );
    try {
      expect(infrastructure.directPool).not.toBe(infrastructure.pool);
      expect(infrastructure.directPool.options.max).toBe(1);
      const name = await infrastructure.directPool.query<{ name: string }>('SELECT current_setting($1) AS name', ['application_name']);
      expect(name.rows).toEqual([{ name: 'direct' }]);
    } finally {
      await infrastructure.close();
    }
  });

  it('when adapters are given, then they are used as they are, need no URL, and are left open by close()', async () => {
    const pool = createPool({ connectionString: testServers.databaseUrl, logger, max: 1 });
    const access = createMemoryAccessStore();
    const bus = createInProcessEventBus();
    try {
      const infrastructure = await openInfrastructure(
        {},
        { name: 'test', logger, needs: ['pool', 'redis', 'bus'], given: { pool, bus, redis: { access, client: undefined } } },
      );
      expect(infrastructure.pool).toBe(pool);
      expect(infrastructure.bus).toBe(bus);
      expect(infrastructure.redis.access).toBe(access);
      await infrastructure.close();
      await expect(pool.query('SELECT 1')).resolves.toBeDefined();
      await expect(access.ping()).resolves.toBeUndefined();
    } finally {
      await bus.close();
      await access.close();
      await pool.end();
    }
  });

  it('when embedded and a URL is unset, then an embedded adapter stands in and is named', async () => {
    const infrastructure = await openInfrastructure(
      { outboxDir: '/tmp/unused-outbox' },
      { name: 'test', logger, needs: ['redis', 'bus', 'mailer'], embedded: { postgres: () => Promise.reject(new Error('not needed')) } },
    );
    expect(infrastructure.embedded).toEqual(['access store', 'event bus', 'mail outbox']);
    expect(infrastructure.redis.client).toBeUndefined();
    await infrastructure.close();
  });
});
