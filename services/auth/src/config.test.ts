import { ConfigError } from '@platform/runtime';
import { loadConfig } from './config';

const complete = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  REDIS_URL: 'redis://127.0.0.1:6379',
  ADMIN_TOKEN: 'admin-token-0123456789',
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
      adminToken: 'admin-token-0123456789',
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
      adminToken: undefined,
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
});
