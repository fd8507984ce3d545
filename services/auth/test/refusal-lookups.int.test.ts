/**
 * Refusal reasons on the token endpoint (CONTRACT §2): telling a replaced key from an unknown one
 * costs a Postgres lookup, made on the refusal path only: never for an issuance (one Redis round
 * trip, CONTRACT §3), and never for a refusal that the failure limit answers 429.
 */
import type { Pool } from 'pg';
import request from 'supertest';
import { generateApiKey, hashSecret } from '@platform/credentials';
import { bearerOf, rotateKey, startAuth, type AuthHarness } from './harness';

describe('the key lookup behind a refusal reason', () => {
  let h: AuthHarness;
  // Statements on api_keys the service runs once started (its start-up reconciliation is done by then).
  let keyReads = 0;
  let counting = false;
  const countingPool = (pool: Pool): Pool =>
    new Proxy(pool, {
      get(target, member) {
        if (member !== 'query') return Reflect.get(target, member, target) as unknown;
        return (text: unknown, ...rest: unknown[]) => {
          if (counting && String(text).includes('api_keys')) keyReads += 1;
          return (target.query as (...args: unknown[]) => unknown)(text, ...rest);
        };
      },
    });

  beforeAll(async () => {
    h = await startAuth({ env: { AUTH_FAILURES_PER_IP: '3' }, wrapPool: countingPool });
    counting = true;
  });
  afterAll(async () => {
    await h.close();
  });

  const issue = (apiKey: string) =>
    request(h.url).post('/oauth/token').set('Authorization', bearerOf(apiKey)).send({ grantType: 'access_token' });

  test('when a token is issued, then no key lookup is made', async () => {
    const account = await h.account({ credits: { 1: 5 } });
    const before = keyReads;
    expect((await issue(account.apiKey)).status).toBe(200);
    expect(keyReads - before).toBe(0);
  });

  test('when a replaced key is refused, then one lookup tells key_replaced', async () => {
    const account = await h.account({ credits: { 1: 5 } });
    await rotateKey(h, account, hashSecret(generateApiKey()));
    const before = keyReads;
    const refused = await issue(account.apiKey);
    expect({ status: refused.status, reason: refused.headers['x-refusal-reason'] }).toEqual({ status: 401, reason: 'key_replaced' });
    expect(keyReads - before).toBe(1);
  });

  test('when the address is over its failure limit, then its refusal is a 429 made without a lookup', async () => {
    let before = keyReads;
    let reply = await issue(generateApiKey());
    // Fails from this address until the limit answers; the answer that is the 429 is the one measured.
    for (let attempt = 0; attempt < 5 && reply.status !== 429; attempt += 1) {
      before = keyReads;
      reply = await issue(generateApiKey());
    }
    expect({ status: reply.status, reason: reply.headers['x-refusal-reason'] }).toEqual({ status: 429, reason: 'rate_limited' });
    expect(keyReads - before).toBe(0);
  });
});
