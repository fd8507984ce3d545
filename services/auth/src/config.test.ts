import { ConfigError } from '@platform/runtime';
import { loadConfig } from './config';

const complete = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  REDIS_URL: 'redis://127.0.0.1:6379',
  ADMIN_TOKEN: 'admin-token-0123456789-0123456789abcdef',
  SERVICE_JWT_SECRET: 'x'.repeat(32),
  AUTH_URL: 'https://auth.example.test',
};

describe('loadConfig', () => {
  test('when only the required variables are set, then the documented defaults apply', () => {
    expect(loadConfig(complete)).toEqual({
      port: 8081,
      host: '127.0.0.1',
      databaseUrl: complete.DATABASE_URL,
      databaseDirectUrl: undefined,
      databasePoolMax: 10,
      redisUrl: complete.REDIS_URL,
      redisKeyPrefix: 'aap:',
      adminTokens: [{ name: 'admin', token: 'admin-token-0123456789-0123456789abcdef', role: 'admin' }],
      serviceJwtSecret: complete.SERVICE_JWT_SECRET,
      publicUrl: 'https://auth.example.test',
      tokenRatePerAccount: 600,
      authFailuresPerIp: 30,
      trustProxy: false,
      metricsToken: undefined,
      logLevel: 'info',
    });
  });

  test('when every required variable is missing or bad, then one ConfigError names them all', () => {
    const run = () => loadConfig({ SERVICE_JWT_SECRET: 'short', TOKEN_RATE_PER_ACCOUNT: '0' });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      /DATABASE_URL: Required.*REDIS_URL: Required.*ADMIN_TOKEN: Required.*SERVICE_JWT_SECRET: must be at least 32 characters.*AUTH_URL: Required.*TOKEN_RATE_PER_ACCOUNT/,
    );
  });

  test('when the limits, the proxy trust and the public URL are set, then they are read', () => {
    const config = loadConfig({
      ...complete,
      TOKEN_RATE_PER_ACCOUNT: '10',
      AUTH_FAILURES_PER_IP: '5',
      TRUST_PROXY: '10.0.0.0/8, 192.0.2.7',
      METRICS_TOKEN: 'metrics-token-0123456789',
      AUTH_URL: 'https://auth.example/',
      AUTH_PORT: '9000',
    });
    expect(config).toMatchObject({
      tokenRatePerAccount: 10,
      authFailuresPerIp: 5,
      trustProxy: ['10.0.0.0/8', '192.0.2.7'],
      metricsToken: 'metrics-token-0123456789',
      publicUrl: 'https://auth.example',
      port: 9000,
    });
  });

  test('when infrastructure is not required (embedded quickstart), then nothing is required and the issuer is the local URL', () => {
    expect(loadConfig({ AUTH_PORT: '9001' }, { requireInfrastructure: false })).toMatchObject({
      databaseUrl: undefined,
      redisUrl: undefined,
      adminTokens: [],
      serviceJwtSecret: undefined,
      publicUrl: 'http://127.0.0.1:9001',
    });
  });

  test('when AUTH_URL is missing outside the embedded quickstart, then the start fails naming it (the issuer never comes from Host)', () => {
    const { AUTH_URL: _unused, ...withoutIssuer } = complete;
    expect(() => loadConfig(withoutIssuer)).toThrow('invalid configuration: AUTH_URL: Required');
  });

  test('when TRUST_PROXY is true, then the start fails naming the accepted forms', () => {
    expect(() => loadConfig({ ...complete, TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY: true would let any client choose its address; use false, a number of proxy hops, or a comma-separated list/,
    );
  });

  test('when a URL has the wrong protocol, then it is reported', () => {
    expect(() => loadConfig({ ...complete, REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL: must be a redis or rediss URL/);
  });

  test('when REDIS_CLUSTER_NODES names seed nodes instead of REDIS_URL, then they are read; both set or a bad list is an error', () => {
    const { REDIS_URL: _url, ...withoutUrl } = complete;
    expect(loadConfig({ ...withoutUrl, REDIS_CLUSTER_NODES: 'redis-0.redis:6379, 10.0.0.7:7001,[::1]:7002' })).toMatchObject({
      redisUrl: undefined,
      redisClusterNodes: [
        { host: 'redis-0.redis', port: 6379 },
        { host: '10.0.0.7', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(() => loadConfig({ ...complete, REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toThrow(
      'invalid configuration: REDIS_CLUSTER_NODES: set REDIS_URL or REDIS_CLUSTER_NODES, not both',
    );
    expect(
      loadConfig({ ...withoutUrl, REDIS_CLUSTER_NODES: 'rediss://default:s%3Acret@redis-0:6380,redis-1:6380' }).redisClusterNodes,
    ).toEqual([
      { host: 'redis-0', port: 6380, username: 'default', password: 's:cret', tls: true },
      { host: 'redis-1', port: 6380 },
    ]);
    expect(() => loadConfig({ ...withoutUrl, REDIS_CLUSTER_NODES: '127.0.0.1,redis:0' })).toThrow(
      'invalid configuration: REDIS_CLUSTER_NODES: must be comma-separated host:port seed nodes (or redis:// URLs)',
    );
    expect(() => loadConfig({ ...withoutUrl, REDIS_CLUSTER_NODES: 'redis://:hunter2@redis-0' })).toThrow(
      'invalid configuration: REDIS_CLUSTER_NODES: must be comma-separated host:port seed nodes (or redis:// URLs)',
    );
    expect(() => loadConfig(withoutUrl)).toThrow('invalid configuration: REDIS_URL: Required');
  });

  describe('admin tokens (CONTRACT §7, as the user service reads them)', () => {
    const ops = 'o'.repeat(32);

    test('when ADMIN_TOKENS names tokens beside ADMIN_TOKEN, then each acts under its name, admin first', () => {
      expect(loadConfig({ ...complete, ADMIN_TOKENS: `ops=${ops}, audit=${'a'.repeat(40)}` }).adminTokens).toEqual([
        { name: 'admin', token: complete.ADMIN_TOKEN, role: 'admin' },
        { name: 'ops', token: ops, role: 'admin' },
        { name: 'audit', token: 'a'.repeat(40), role: 'admin' },
      ]);
    });

    test('when ADMIN_TOKENS stands instead of ADMIN_TOKEN, then ADMIN_TOKEN is not required', () => {
      const { ADMIN_TOKEN: _unused, ...rest } = complete;
      expect(loadConfig({ ...rest, ADMIN_TOKENS: `ops=${ops}` }).adminTokens).toEqual([{ name: 'ops', token: ops, role: 'admin' }]);
    });

    test.each([
      ['a short token', `ops=${'o'.repeat(31)}`, 'ADMIN_TOKENS: the token named ops must be at least 32 characters'],
      ['an entry without a name', 'o'.repeat(32), 'ADMIN_TOKENS: entry 1 must be name=token'],
      ['the name admin beside ADMIN_TOKEN', `admin=${ops}`, 'ADMIN_TOKENS: names admin or repeats ADMIN_TOKEN'],
    ])('when ADMIN_TOKENS has %s, then the start stops and no token is printed', (_what, spec, message) => {
      let error: unknown;
      try {
        loadConfig({ ...complete, ADMIN_TOKENS: spec });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).not.toContain('o'.repeat(31));
    });
  });
});
