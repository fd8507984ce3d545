/**
 * CONTRACT §2/§3/§8: answers while Redis is unreachable (a user and an auth service reach it through a
 * TCP proxy that the tests cut): readiness 503, 503 with Retry-After, forged tokens still 401.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { eventually } from '@platform/testing';
import {
  FORMATS,
  GRANT,
  JSON_TYPE,
  UNAVAILABLE,
  bearer,
  call,
  expectBody,
  expectRetryAfter,
  seedBearer,
  unauthorized,
  withFormat,
  usePlatform,
} from './support';

const { platform, freshKey } = usePlatform({ fragile: true });

describe('§2/§3/§8 while Redis is unreachable (a user and an auth service reach it through a TCP proxy)', () => {
  async function duringRedisOutage(work: () => Promise<void>): Promise<void> {
    platform.redisProxy.cut();
    try {
      await eventually(
        async () => ((await call(platform.fragileUser, '/health/ready')).status === 503 ? true : undefined),
        10_000,
        'readiness 503',
      );
      await work();
    } finally {
      platform.redisProxy.restore();
    }
    await eventually(
      async () => ((await call(platform.fragileUser, '/health/ready')).status === 200 ? true : undefined),
      15_000,
      'readiness 200',
    );
  }

  it('when Redis is down, then readiness is 503 with the state of each check, and 200 {"status":"ready"} once it is back', async () => {
    await duringRedisOutage(async () => {
      const reply = await call(platform.fragileUser, '/health/ready');
      expect({ status: reply.status, type: reply.type }).toEqual({ status: 503, type: JSON_TYPE });
      expect(reply.text).toContain('redis');
      expect(reply.text).toContain('postgres');
    });
    expectBody(await call(platform.fragileUser, '/health/ready'), 200, { status: 'ready' });
  });

  it.each(FORMATS)(
    'when a token must be looked up while Redis is down, then 503 with Retry-After and the contract’s sentence, in %s',
    async (format) => {
      const token = await platform.token(await freshKey());
      await duringRedisOutage(async () => {
        const reply = await call(platform.fragileUser, '/user-service/account-balance', {
          query: { apiKey: token, ...withFormat(format) },
        });
        expectBody(reply, 503, UNAVAILABLE, format);
        expectRetryAfter(reply);
      });
      expect((await call(platform.fragileUser, '/user-service/account-balance', { query: { apiKey: token } })).status).toBe(200);
    },
  );

  it('when a garbled or forged token arrives while Redis is down, then 401 (rejected without a store lookup)', async () => {
    const real = await platform.token(await freshKey());
    // One character of the random part changed: the token's own format gives it away.
    const forged = `${real.slice(0, 10)}${real[10] === 'A' ? 'B' : 'A'}${real.slice(11)}`;
    await duringRedisOutage(async () => {
      for (const token of ['tk_garbled', forged]) {
        expectBody(await call(platform.fragileUser, '/user-service/account-balance', { headers: bearer(token) }), 401, unauthorized);
      }
    });
  });

  it.each(FORMATS)(
    'when a token is requested while Redis is down, then the auth service answers 503 with Retry-After, in %s',
    async (format) => {
      const apiKey = await freshKey();
      await duringRedisOutage(async () => {
        const reply = await call(platform.fragileAuth, '/oauth/token', {
          headers: seedBearer(apiKey),
          json: { ...GRANT, ...withFormat(format) },
        });
        expectBody(reply, 503, UNAVAILABLE, format);
        expectRetryAfter(reply);
      });
      expect((await call(platform.fragileAuth, '/oauth/token', { headers: seedBearer(apiKey), json: GRANT })).status).toBe(200);
    },
  );
});
