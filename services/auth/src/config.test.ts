import { ConfigError } from '@platform/common';
import { loadConfig } from './config';

const complete = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  REDIS_URL: 'redis://127.0.0.1:6379',
  ADMIN_TOKEN: 'admin-token-0123456789',
  SERVICE_JWT_SECRET: 'x'.repeat(32),
};

describe('loadConfig', () => {
  test('when only the required variables are set, then the documented defaults apply', () => {
    expect(loadConfig(complete)).toEqual({
      port: 8081,
      host: '127.0.0.1',
      databaseUrl: complete.DATABASE_URL,
      redisUrl: complete.REDIS_URL,
      redisKeyPrefix: 'aap:',
      adminToken: 'admin-token-0123456789',
      serviceJwtSecret: complete.SERVICE_JWT_SECRET,
      publicUrl: undefined,
      tokenRatePerAccount: 600,
      authFailuresPerIp: 30,
      trustProxy: false,
      logLevel: 'info',
    });
  });

  test('when every required variable is missing or bad, then one ConfigError names them all', () => {
    const run = () => loadConfig({ SERVICE_JWT_SECRET: 'short', TOKEN_RATE_PER_ACCOUNT: '0' });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      /DATABASE_URL: Required.*REDIS_URL: Required.*ADMIN_TOKEN: Required.*SERVICE_JWT_SECRET: must be at least 32 characters.*TOKEN_RATE_PER_ACCOUNT/,
    );
  });

  test('when the limits, the proxy trust and the public URL are set, then they are read', () => {
    const config = loadConfig({
      ...complete,
      TOKEN_RATE_PER_ACCOUNT: '10',
      AUTH_FAILURES_PER_IP: '5',
      TRUST_PROXY: 'true',
      AUTH_URL: 'https://auth.example/',
      AUTH_PORT: '9000',
    });
    expect(config).toMatchObject({
      tokenRatePerAccount: 10,
      authFailuresPerIp: 5,
      trustProxy: true,
      publicUrl: 'https://auth.example',
      port: 9000,
    });
  });

  test('when infrastructure is not required (embedded quickstart), then nothing is required', () => {
    expect(loadConfig({}, { requireInfrastructure: false })).toMatchObject({
      databaseUrl: undefined,
      redisUrl: undefined,
      adminToken: undefined,
      serviceJwtSecret: undefined,
    });
  });

  test('when a URL has the wrong protocol, then it is reported', () => {
    expect(() => loadConfig({ ...complete, REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL: must be a redis or rediss URL/);
  });
});
