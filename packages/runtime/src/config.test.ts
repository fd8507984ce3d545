import { z } from 'zod';
import { ConfigError, env, parseEnv } from './config';

const schema = z.object({
  AUTH_PORT: env.port(8081),
  REDIS_URL: env.url(['redis', 'rediss']),
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  SERVICE_JWT_SECRET: env.secret(32),
  TRUST_PROXY: env.trustProxy(),
  TOKEN_RATE_PER_ACCOUNT: env.positiveInt(600),
  LOG_LEVEL: env.logLevel(),
});

const good = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  DATABASE_URL: 'postgres://app:pw@127.0.0.1:5432/app',
  SERVICE_JWT_SECRET: 'x'.repeat(32),
};

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseEnv', () => {
  it('when every variable is valid, then the typed config with defaults is returned', () => {
    expect(parseEnv(schema, good)).toEqual({
      AUTH_PORT: 8081,
      REDIS_URL: 'redis://127.0.0.1:6379',
      DATABASE_URL: 'postgres://app:pw@127.0.0.1:5432/app',
      SERVICE_JWT_SECRET: 'x'.repeat(32),
      TRUST_PROXY: false,
      TOKEN_RATE_PER_ACCOUNT: 600,
      LOG_LEVEL: 'info',
    });
  });

  it('when several variables are bad, then one ConfigError names every one of them', () => {
    const error = configError(() =>
      parseEnv(schema, {
        AUTH_PORT: 'eighty',
        DATABASE_URL: 'mysql://x/y',
        SERVICE_JWT_SECRET: 'short',
        TRUST_PROXY: 'maybe',
        TOKEN_RATE_PER_ACCOUNT: '0',
        LOG_LEVEL: 'loud',
      }),
    );
    expect(error.name).toBe('ConfigError');
    expect(error.message).toMatch(/^invalid configuration: /);
    for (const name of [
      'AUTH_PORT',
      'REDIS_URL',
      'DATABASE_URL',
      'SERVICE_JWT_SECRET',
      'TRUST_PROXY',
      'TOKEN_RATE_PER_ACCOUNT',
      'LOG_LEVEL',
    ]) {
      expect(error.message).toContain(`${name}:`);
    }
    expect(error.message).toContain('REDIS_URL: Required');
    expect(error.message).toContain('DATABASE_URL: must be a postgres or postgresql URL');
    expect(error.message).toContain('SERVICE_JWT_SECRET: must be at least 32 characters');
  });

  it('when a variable is an empty string, then it counts as unset (default applies, required fails)', () => {
    expect(parseEnv(schema, { ...good, AUTH_PORT: '', LOG_LEVEL: '' })).toMatchObject({ AUTH_PORT: 8081, LOG_LEVEL: 'info' });
    expect(configError(() => parseEnv(schema, { ...good, REDIS_URL: '' })).message).toBe('invalid configuration: REDIS_URL: Required');
  });

  it('when a secret is too short, then the message does not print its value', () => {
    const error = configError(() => parseEnv(schema, { ...good, SERVICE_JWT_SECRET: 'tiny-secret' }));
    expect(error.message).not.toContain('tiny-secret');
  });

  it('when a URL with a password is malformed, then the message does not print it', () => {
    const error = configError(() => parseEnv(schema, { ...good, DATABASE_URL: 'not a url hunter2' }));
    expect(error.message).not.toContain('hunter2');
  });

  it('when unrelated variables are present, then they are ignored', () => {
    expect(parseEnv(schema, { ...good, PATH: '/usr/bin', HOME: '/root' })).not.toHaveProperty('PATH');
  });

  it('when a rule spans variables, then its message still appears', () => {
    const paired = z
      .object({ A: z.string().optional(), B: z.string().optional() })
      .refine((value) => (value.A === undefined) === (value.B === undefined), 'A and B go together');
    expect(configError(() => parseEnv(paired, { A: 'x' })).message).toBe('invalid configuration: (env): A and B go together');
  });
});

describe('env helpers', () => {
  it('port: numeric strings in 0–65535, default when unset', () => {
    const port = z.object({ P: env.port(8082) });
    expect(parseEnv(port, {})).toEqual({ P: 8082 });
    expect(parseEnv(port, { P: '0' })).toEqual({ P: 0 });
    expect(parseEnv(port, { P: '65535' })).toEqual({ P: 65535 });
    for (const bad of ['65536', '-1', '80.5', 'http']) expect(() => parseEnv(port, { P: bad })).toThrow(ConfigError);
  });

  it('url: a valid URL with one of the protocols', () => {
    const url = z.object({ U: env.url(['amqp', 'amqps']) });
    expect(parseEnv(url, { U: 'amqps://guest:guest@mq:5671/' })).toEqual({ U: 'amqps://guest:guest@mq:5671/' });
    expect(() => parseEnv(url, { U: 'http://mq' })).toThrow('U: must be a amqp or amqps URL');
    expect(() => parseEnv(url, { U: 'amqpx://mq' })).toThrow(ConfigError);
    expect(() => parseEnv(url, { U: 'mq:5672' })).toThrow(ConfigError);
  });

  it('secret: at least the minimum length', () => {
    const secret = z.object({ S: env.secret(4) });
    expect(parseEnv(secret, { S: 'abcd' })).toEqual({ S: 'abcd' });
    expect(() => parseEnv(secret, { S: 'abc' })).toThrow('S: must be at least 4 characters');
  });

  it('bool: true/false/1/0 in any case, default when unset', () => {
    const flag = z.object({ F: env.bool(true) });
    expect(parseEnv(flag, {})).toEqual({ F: true });
    expect(parseEnv(flag, { F: '' })).toEqual({ F: true });
    expect(parseEnv(flag, { F: 'false' })).toEqual({ F: false });
    expect(parseEnv(flag, { F: '0' })).toEqual({ F: false });
    expect(parseEnv(flag, { F: 'TRUE' })).toEqual({ F: true });
    expect(parseEnv(flag, { F: 'False' })).toEqual({ F: false });
    expect(parseEnv(flag, { F: '1' })).toEqual({ F: true });
    expect(() => parseEnv(flag, { F: 'yes' })).toThrow(ConfigError);
  });

  it('positiveInt: integers above 0, default when unset', () => {
    const rate = z.object({ R: env.positiveInt(30) });
    expect(parseEnv(rate, {})).toEqual({ R: 30 });
    expect(parseEnv(rate, { R: '7' })).toEqual({ R: 7 });
    for (const bad of ['0', '-3', '2.5', 'many']) expect(() => parseEnv(rate, { R: bad })).toThrow(ConfigError);
  });

  it('logLevel: one of the winston levels, info by default', () => {
    const level = z.object({ L: env.logLevel() });
    expect(parseEnv(level, {})).toEqual({ L: 'info' });
    expect(parseEnv(level, { L: 'debug' })).toEqual({ L: 'debug' });
    expect(() => parseEnv(level, { L: 'trace' })).toThrow(ConfigError);
  });

  it('trustProxy: false by default; a hop count; a list of addresses/CIDRs or express names', () => {
    const trust = z.object({ T: env.trustProxy() });
    expect(parseEnv(trust, {})).toEqual({ T: false });
    expect(parseEnv(trust, { T: 'FALSE' })).toEqual({ T: false });
    expect(parseEnv(trust, { T: '0' })).toEqual({ T: false });
    expect(parseEnv(trust, { T: '2' })).toEqual({ T: 2 });
    expect(parseEnv(trust, { T: '10.0.0.0/8, 192.0.2.7 ,fd00::/8,loopback' })).toEqual({
      T: ['10.0.0.0/8', '192.0.2.7', 'fd00::/8', 'loopback'],
    });
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0/8', 'fd00::/129', '10.0.0.1,', 'proxy.internal', '1.2.3.4/8/9', '-1', '100'])
      expect(() => parseEnv(trust, { T: bad })).toThrow(/T: use false, a number of proxy hops, or a comma-separated list/);
  });

  it('trustProxy: true is refused, since it lets a client that reaches the service directly choose its own address', () => {
    const trust = z.object({ TRUST_PROXY: env.trustProxy() });
    for (const value of ['true', 'TRUE'])
      expect(() => parseEnv(trust, { TRUST_PROXY: value })).toThrow(
        'TRUST_PROXY: true would let any client choose its address; use false, a number of proxy hops, or a comma-separated list',
      );
  });
});
