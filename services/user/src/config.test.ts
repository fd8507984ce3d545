import { ConfigError } from '@platform/runtime';
import { loadConfig } from './config';

const FULL = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  REDIS_URL: 'redis://127.0.0.1:6379',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  ADMIN_TOKEN: 'an-admin-token-long-enough-0123456789',
  SERVICE_JWT_SECRET: 'a-service-jwt-secret-of-32-chars!!',
};

describe('loadConfig', () => {
  it('when every variable is set, then the config with the documented defaults', () => {
    expect(loadConfig(FULL)).toEqual({
      host: '127.0.0.1',
      port: 8082,
      databaseUrl: FULL.DATABASE_URL,
      databaseDirectUrl: undefined,
      databasePoolMax: 10,
      redisUrl: FULL.REDIS_URL,
      redisKeyPrefix: 'aap:',
      amqpUrl: FULL.AMQP_URL,
      balanceExchange: 'balance.events',
      outboxPollMs: 500,
      outboxWakeDelayMs: 50,
      outboxRetryInitialMs: 500,
      outboxRetryMaxMs: 10_000,
      outboxRetentionHours: 24,
      outboxSweepMs: 10_000,
      outboxMessageMaxBytes: 65_536,
      usageBatchMaxSize: 2000,
      usageBatchMaxWaitMs: 0,
      usageBatchLanes: 1,
      usageRequestRetentionHours: 25,
      usageRequestSweepMs: 10_000,
      adminTokens: [{ name: 'admin', token: FULL.ADMIN_TOKEN, role: 'admin' }],
      serviceJwtSecret: FULL.SERVICE_JWT_SECRET,
      trustProxy: false,
      authFailuresPerIp: 30,
      metricsToken: undefined,
      logLevel: 'info',
      accountPageAuthUrl: 'http://127.0.0.1:8081',
      accessRepairSweepMs: 5000,
      reservationSweepMs: 10000,
      testPauseAt: undefined,
      testFault: undefined,
      topUpUrl: undefined,
      brandName: 'Account access',
      webhookAllowInsecure: false,
    });
  });

  it('when a test pause point is named, then it is read; a malformed one is refused', () => {
    expect(loadConfig({ ...FULL, TEST_PAUSE_AT: 'usage-after-commit@3' }).testPauseAt).toBe('usage-after-commit@3');
    expect(() => loadConfig({ ...FULL, TEST_PAUSE_AT: 'Usage after commit' })).toThrow(/TEST_PAUSE_AT/);
  });

  test('takes the test-only TEST_FAULT outside production, and refuses it under NODE_ENV=production', () => {
    expect(loadConfig({ ...FULL, TEST_FAULT: 'usage-answer-without-commit@40' }).testFault).toBe('usage-answer-without-commit@40');
    expect(() => loadConfig({ ...FULL, TEST_FAULT: 'usage-lost@1' })).toThrow(/TEST_FAULT/);
    expect(() => loadConfig({ ...FULL, NODE_ENV: 'production', TEST_FAULT: 'usage-answer-without-commit@40' })).toThrow(
      /TEST_FAULT.*exists for tests only; refused when NODE_ENV=production/,
    );
    expect(loadConfig({ ...FULL, ACCESS_REPAIR_SWEEP_MS: '250' }).accessRepairSweepMs).toBe(250);
    expect(loadConfig({ ...FULL, RESERVATION_SWEEP_MS: '200' }).reservationSweepMs).toBe(200);
    // A reservation must come back within 60 s after its expiresAt (CONTRACT §7.1).
    expect(() => loadConfig({ ...FULL, RESERVATION_SWEEP_MS: '60000' })).toThrow(/RESERVATION_SWEEP_MS/);
  });

  it('when NODE_ENV=production, then a test switch that is on is a start-up error naming it; off, or outside production, it is accepted', () => {
    const production = { ...FULL, NODE_ENV: 'production' };
    expect(() => loadConfig({ ...production, TEST_PAUSE_AT: 'usage-after-commit' })).toThrow(
      new ConfigError('invalid configuration: TEST_PAUSE_AT: exists for tests only; refused when NODE_ENV=production'),
    );
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_INSECURE: 'true' })).toThrow(
      new ConfigError('invalid configuration: WEBHOOK_ALLOW_INSECURE: exists for tests only; refused when NODE_ENV=production'),
    );
    expect(() => loadConfig({ ...production, TEST_PAUSE_AT: 'usage-after-commit', WEBHOOK_ALLOW_INSECURE: '1' })).toThrow(
      /TEST_PAUSE_AT: exists for tests only.*; WEBHOOK_ALLOW_INSECURE: exists for tests only/,
    );
    expect(loadConfig({ ...production, WEBHOOK_ALLOW_INSECURE: 'false' })).toMatchObject({
      webhookAllowInsecure: false,
      testPauseAt: undefined,
    });
    expect(
      loadConfig({ ...FULL, NODE_ENV: 'development', TEST_PAUSE_AT: 'usage-after-commit', WEBHOOK_ALLOW_INSECURE: 'true' }),
    ).toMatchObject({
      webhookAllowInsecure: true,
      testPauseAt: 'usage-after-commit',
    });
  });

  it('when TOP_UP_URL, BRAND_NAME and WEBHOOK_ALLOW_INSECURE are set, then the page and the webhooks use them', () => {
    const config = loadConfig({
      ...FULL,
      TOP_UP_URL: 'https://billing.example.com/buy',
      BRAND_NAME: 'Acme Data',
      WEBHOOK_ALLOW_INSECURE: 'true',
    });
    expect(config).toMatchObject({ topUpUrl: 'https://billing.example.com/buy', brandName: 'Acme Data', webhookAllowInsecure: true });
    expect(() => loadConfig({ ...FULL, TOP_UP_URL: 'javascript:alert(1)' })).toThrow(/TOP_UP_URL/);
  });

  it('when AUTH_URL is set, then the account page calls it; ACCOUNT_PAGE_AUTH_URL wins over it', () => {
    expect(loadConfig({ ...FULL, AUTH_URL: 'https://auth.example.com' }).accountPageAuthUrl).toBe('https://auth.example.com');
    expect(
      loadConfig({ ...FULL, AUTH_URL: 'http://auth:8081', ACCOUNT_PAGE_AUTH_URL: 'https://login.example.com' }).accountPageAuthUrl,
    ).toBe('https://login.example.com');
  });

  it('when infrastructure is required and missing, then one ConfigError names every missing variable', () => {
    let caught: unknown;
    try {
      loadConfig({ USER_PORT: '9000' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL', 'ADMIN_TOKEN', 'SERVICE_JWT_SECRET']) expect(message).toContain(name);
  });

  it('when values are malformed, then they are reported', () => {
    expect(() => loadConfig({ ...FULL, REDIS_URL: 'http://x', USER_PORT: 'abc', SERVICE_JWT_SECRET: 'short' })).toThrow(
      /REDIS_URL.*USER_PORT|USER_PORT.*REDIS_URL/,
    );
  });

  it('when the outbox is tuned, then its exchange, poll interval, wake delay, backoff, retention and message bound are read; a poll interval of 0 is refused', () => {
    expect(
      loadConfig({
        ...FULL,
        BALANCE_EXCHANGE: 'x.events',
        OUTBOX_POLL_MS: '50',
        OUTBOX_WAKE_DELAY_MS: '0',
        OUTBOX_RETRY_INITIAL_MS: '20',
        OUTBOX_RETRY_MAX_MS: '400',
        OUTBOX_RETENTION_HOURS: '0',
        OUTBOX_SWEEP_MS: '2000',
        OUTBOX_MESSAGE_MAX_BYTES: '4096',
      }),
    ).toMatchObject({
      balanceExchange: 'x.events',
      outboxPollMs: 50,
      outboxWakeDelayMs: 0,
      outboxRetryInitialMs: 20,
      outboxRetryMaxMs: 400,
      outboxRetentionHours: 0,
      outboxSweepMs: 2000,
      outboxMessageMaxBytes: 4096,
    });
    expect(() => loadConfig({ ...FULL, OUTBOX_POLL_MS: '0' })).toThrow(/OUTBOX_POLL_MS/);
    expect(() => loadConfig({ ...FULL, OUTBOX_WAKE_DELAY_MS: '-1' })).toThrow(/OUTBOX_WAKE_DELAY_MS/);
    expect(() => loadConfig({ ...FULL, OUTBOX_RETENTION_HOURS: '-1' })).toThrow(/OUTBOX_RETENTION_HOURS/);
    expect(() => loadConfig({ ...FULL, OUTBOX_MESSAGE_MAX_BYTES: '100' })).toThrow(/OUTBOX_MESSAGE_MAX_BYTES/);
  });

  it('when usage batching is tuned, then size, wait, lanes and retention are read; a retention under 24 hours is refused', () => {
    expect(
      loadConfig({
        ...FULL,
        USAGE_BATCH_MAX_SIZE: '50',
        USAGE_BATCH_MAX_WAIT_MS: '3',
        USAGE_BATCH_LANES: '4',
        USAGE_REQUEST_RETENTION_HOURS: '48',
        USAGE_REQUEST_SWEEP_MS: '1000',
      }),
    ).toMatchObject({
      usageBatchMaxSize: 50,
      usageBatchMaxWaitMs: 3,
      usageBatchLanes: 4,
      usageRequestRetentionHours: 48,
      usageRequestSweepMs: 1000,
    });
    expect(() => loadConfig({ ...FULL, USAGE_REQUEST_RETENTION_HOURS: '23' })).toThrow(/USAGE_REQUEST_RETENTION_HOURS/);
    expect(() => loadConfig({ ...FULL, USAGE_BATCH_MAX_SIZE: '0', USAGE_BATCH_LANES: '0' })).toThrow(
      /USAGE_BATCH_MAX_SIZE.*USAGE_BATCH_LANES|USAGE_BATCH_LANES.*USAGE_BATCH_MAX_SIZE/,
    );
  });

  it('when the database is behind a pooler, then DATABASE_DIRECT_URL and DATABASE_POOL_MAX are read; a pool no larger than the usage lanes is refused', () => {
    expect(
      loadConfig({
        ...FULL,
        DATABASE_URL: 'postgres://app@pgbouncer:6432/app',
        DATABASE_DIRECT_URL: 'postgres://app@pg:5432/app',
        DATABASE_POOL_MAX: '4',
      }),
    ).toMatchObject({
      databaseUrl: 'postgres://app@pgbouncer:6432/app',
      databaseDirectUrl: 'postgres://app@pg:5432/app',
      databasePoolMax: 4,
    });
    expect(() => loadConfig({ ...FULL, DATABASE_POOL_MAX: '2', USAGE_BATCH_LANES: '2' })).toThrow(
      'invalid configuration: DATABASE_POOL_MAX: must be more than USAGE_BATCH_LANES (the usage batches take that many of its connections)',
    );
    expect(() => loadConfig({ ...FULL, DATABASE_POOL_MAX: '0' })).toThrow(/DATABASE_POOL_MAX/);
    expect(() => loadConfig({ ...FULL, DATABASE_DIRECT_URL: 'http://pg:5432/app' })).toThrow(
      /DATABASE_DIRECT_URL: must be a postgres or postgresql URL/,
    );
  });

  it('when AMQP_URL lists several nodes, then the list is kept in order; a bad entry is refused', () => {
    expect(loadConfig({ ...FULL, AMQP_URL: 'amqp://a:5672, amqp://b:5672,amqps://c:5671' }).amqpUrl).toBe(
      'amqp://a:5672,amqp://b:5672,amqps://c:5671',
    );
    expect(() => loadConfig({ ...FULL, AMQP_URL: 'amqp://a:5672,redis://b:6379' })).toThrow(
      'invalid configuration: AMQP_URL: must be a amqp or amqps URL, or several separated by commas',
    );
    expect(() => loadConfig({ ...FULL, AMQP_URL: 'amqp://a:5672,' })).toThrow(/AMQP_URL/);
  });

  it('when infrastructure is not required (embedded quickstart), then the URLs may be absent and empty values count as unset', () => {
    const config = loadConfig({ USER_PORT: '0', DATABASE_URL: '', REDIS_KEY_PREFIX: 'x:' }, { requireInfrastructure: false });
    expect(config).toMatchObject({ port: 0, databaseUrl: undefined, redisUrl: undefined, adminTokens: [], redisKeyPrefix: 'x:' });
  });

  describe('admin tokens (CONTRACT §7)', () => {
    it('when ADMIN_TOKEN is shorter than 32 characters, then the start stops with a clear message', () => {
      expect(() => loadConfig({ ...FULL, ADMIN_TOKEN: 'x'.repeat(31) })).toThrow('ADMIN_TOKEN: must be at least 32 characters');
    });

    it('when ADMIN_TOKENS names tokens beside ADMIN_TOKEN, then each acts under its name, admin first', () => {
      const alice = 'a'.repeat(32);
      const bob = 'b'.repeat(40);
      expect(loadConfig({ ...FULL, ADMIN_TOKENS: `alice=${alice}, bob=${bob}` }).adminTokens).toEqual([
        { name: 'admin', token: FULL.ADMIN_TOKEN, role: 'admin' },
        { name: 'alice', token: alice, role: 'admin' },
        { name: 'bob', token: bob, role: 'admin' },
      ]);
    });

    it('when an ADMIN_TOKENS entry names a role, then the token has it (admin when not named)', () => {
      const sam = 's'.repeat(32);
      const ops = 'o'.repeat(32);
      expect(loadConfig({ ...FULL, ADMIN_TOKENS: `sam:support=${sam}, ops:admin=${ops}` }).adminTokens).toEqual([
        { name: 'admin', token: FULL.ADMIN_TOKEN, role: 'admin' },
        { name: 'sam', token: sam, role: 'support' },
        { name: 'ops', token: ops, role: 'admin' },
      ]);
    });

    it('when ADMIN_TOKENS stands instead of ADMIN_TOKEN, then ADMIN_TOKEN is not required', () => {
      const { ADMIN_TOKEN: _unused, ...rest } = FULL;
      expect(loadConfig({ ...rest, ADMIN_TOKENS: `ops=${'o'.repeat(32)}` }).adminTokens).toEqual([
        { name: 'ops', token: 'o'.repeat(32), role: 'admin' },
      ]);
      expect(() => loadConfig(rest)).toThrow('ADMIN_TOKEN: Required');
    });

    it.each([
      ['a short token', `alice=${'a'.repeat(31)}`, 'ADMIN_TOKENS: the token named alice must be at least 32 characters'],
      ['a name twice', `alice=${'a'.repeat(32)},alice=${'b'.repeat(32)}`, 'ADMIN_TOKENS: the name alice is given twice'],
      ['an entry without a name', `${'a'.repeat(32)}`, 'ADMIN_TOKENS: entry 1 must be name=token'],
      ['the name admin beside ADMIN_TOKEN', `admin=${'a'.repeat(32)}`, 'ADMIN_TOKENS: names admin or repeats ADMIN_TOKEN'],
      [
        'an unknown role',
        `alice:root=${'a'.repeat(32)}`,
        'ADMIN_TOKENS: the token named alice has the role root, which is not one of admin, support',
      ],
      ['two roles', `alice:support:admin=${'a'.repeat(32)}`, 'ADMIN_TOKENS: entry 1 must be name=token or name:role=token'],
    ])('when ADMIN_TOKENS has %s, then the start stops and no token is printed', (_what, spec, message) => {
      let error: unknown;
      try {
        loadConfig({ ...FULL, ADMIN_TOKENS: spec });
      } catch (caught) {
        error = caught;
      }
      expect(String(error)).toContain(message);
      expect(String(error)).not.toMatch(/aaaaaaaa|bbbbbbbb/);
    });
  });
});
