import path from 'node:path';
import { ConfigError } from '@platform/runtime';
import { DEFAULT_TAXONOMY_FILE, loadConfig } from './config';

describe('loadConfig', () => {
  it('when nothing is set standalone, then every required variable is reported in one error', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({})).toThrow(/DATABASE_URL: Required; REDIS_URL: Required; ADMIN_TOKEN: Required/);
  });

  it('when infrastructure is not required, then the defaults apply', () => {
    expect(loadConfig({}, { requireInfrastructure: false })).toEqual({
      port: 8083,
      host: '127.0.0.1',
      databaseUrl: undefined,
      databaseDirectUrl: undefined,
      databasePoolMax: 10,
      redisUrl: undefined,
      redisKeyPrefix: 'aap:',
      adminTokens: [],
      iabTaxonomyFile: DEFAULT_TAXONOMY_FILE,
      refreshIntervalMs: 2000,
      trustProxy: false,
      authFailuresPerIp: 30,
      metricsToken: undefined,
      logLevel: 'info',
    });
  });

  it('when the taxonomy file is not set, then the default is the copy that ships with the service', () => {
    expect(DEFAULT_TAXONOMY_FILE).toBe(path.resolve(__dirname, '../data/content-taxonomy-2.2.tsv'));
  });

  it('when every variable is set, then they are read', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db:5432/x',
      REDIS_URL: 'redis://cache:6379',
      ADMIN_TOKEN: 'admin-token-0123456789-0123456789abcdef',
      CATEGORIZATION_PORT: '9000',
      IAB_TAXONOMY_FILE: '/data/taxonomy.tsv',
      CATEGORY_REFRESH_INTERVAL_MS: '250',
      REDIS_KEY_PREFIX: 'x:',
      TRUST_PROXY: '2',
      AUTH_FAILURES_PER_IP: '7',
    });
    expect(config).toMatchObject({
      port: 9000,
      iabTaxonomyFile: '/data/taxonomy.tsv',
      refreshIntervalMs: 250,
      redisKeyPrefix: 'x:',
      adminTokens: [{ name: 'admin', token: 'admin-token-0123456789-0123456789abcdef', role: 'admin' }],
      trustProxy: 2,
      authFailuresPerIp: 7,
    });
  });

  it('when values are malformed, then each is named', () => {
    expect(() =>
      loadConfig({
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'redis://r',
        ADMIN_TOKEN: 'admin-token-0123456789-0123456789abcdef',
        CATEGORY_REFRESH_INTERVAL_MS: '0',
      }),
    ).toThrow(/DATABASE_URL: must be a postgres or postgresql URL; CATEGORY_REFRESH_INTERVAL_MS: /);
  });

  it('when ADMIN_TOKENS stands instead of ADMIN_TOKEN, then ADMIN_TOKEN is not required and each token acts under its name', () => {
    const ops = 'o'.repeat(32);
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db', REDIS_URL: 'redis://r', ADMIN_TOKENS: `ops=${ops}` }).adminTokens).toEqual([
      { name: 'ops', token: ops, role: 'admin' },
    ]);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db', REDIS_URL: 'redis://r' })).toThrow(/ADMIN_TOKEN: Required/);
  });
});
