/**
 * A write that closes access is made before the COMMIT (CONTRACT §3): a rotation, a disabling and
 * a debit to 0 are each paused right after their COMMIT (TEST_PAUSE_AT `access-after-commit`,
 * before anything that follows the commit runs), and while the user service waits there the auth
 * service (Redis) and the user service's token checks (Redis) already refuse what the change
 * closed: the replaced key, the disabled account's key and its earlier token, the emptied
 * account's issuance. A closing write moved after the COMMIT would still be pending here.
 */
import { randomUUID } from 'node:crypto';
import { hashSecret, signServiceJwt } from '@platform/credentials';
import type { ServiceProcess } from '@platform/testing';
import { SERVICE_JWT_SECRET, useUserProcessFixture } from './user-process-fixture';

interface Closing {
  /** Starts the change (not awaited: it is paused after its COMMIT). */
  start(user: ServiceProcess, account: { id: number; apiKey: string }): Promise<Response>;
  /** Postgres has committed it (so the pause is after the COMMIT, not before). */
  committed(accountId: number, apiKey: string): Promise<boolean>;
  /** What the balance endpoint answers, with the key and with a token minted before the change. */
  balanceWithKey: number;
  balanceWithToken: number;
  /** The key's record in the access store while paused. */
  keyRecord: unknown;
}

describe('closing writes are made before the COMMIT (user service paused right after it)', () => {
  const fx = useUserProcessFixture('access-close', { from: 21_250, to: 21_299 });
  const { startUser, pausedAt, admin, createAccount, issuance, credits } = fx;

  const keyActive = async (apiKey: string): Promise<boolean> =>
    (await fx.pool.query<{ active: boolean }>('SELECT active FROM api_keys WHERE key_hash = $1', [hashSecret(apiKey)])).rows[0]?.active ??
    false;

  const mintToken = async (apiKey: string): Promise<string> => {
    const res = await fetch(`${fx.auth.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${Buffer.from(apiKey).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'access_token' }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { accessToken: string }).accessToken;
  };

  const balance = async (user: ServiceProcess, credential: string): Promise<number> => {
    const res = await fetch(`${user.url}/user-service/account-balance?apiKey=${encodeURIComponent(credential)}`);
    await res.body?.cancel();
    return res.status;
  };

  const CLOSINGS: Record<string, Closing> = {
    'a key rotation': {
      start: (user, account) => fetch(`${user.url}/user-service/api-key/generate?currentApiKey=${encodeURIComponent(account.apiKey)}`),
      committed: async (_accountId, apiKey) => !(await keyActive(apiKey)),
      balanceWithKey: 401,
      balanceWithToken: 401,
      keyRecord: undefined,
    },
    'an account disabled': {
      start: (user, account) => admin(user, `/admin/v1/accounts/${account.id}`, { disabled: true }, 'PATCH'),
      committed: async (_accountId, apiKey) => !(await keyActive(apiKey)),
      balanceWithKey: 401,
      balanceWithToken: 401,
      keyRecord: undefined,
    },
    'a debit taking the only pool to 0': {
      start: (user, account) =>
        fetch(`${user.url}/internal/v1/usage`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${signServiceJwt({ issuer: 'close-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 })}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ credential: account.apiKey, productId: 1, units: 5, requestId: randomUUID() }),
        }),
      committed: async (accountId) => (await credits(accountId)) === 0,
      // An account whose pools are all 0 still reads its balance (CONTRACT §4.3); only issuance closes.
      balanceWithKey: 200,
      balanceWithToken: 200,
      keyRecord: expect.objectContaining({ hasCredits: false }),
    },
  };

  it.each(Object.keys(CLOSINGS))(
    'when %s is paused right after its COMMIT, then the access it closed is already refused by every service',
    async (name) => {
      const closing = CLOSINGS[name] as Closing;
      // Hit 1 is the account's creation; hit 2 the closing change.
      const user = await startUser('access-after-commit@2');
      try {
        const account = await createAccount(user, 5);
        const token = await mintToken(account.apiKey);
        expect(await balance(user, token)).toBe(200);
        const change = closing.start(user, account).then((res) => res.status);
        await pausedAt(user, 'access-after-commit');
        expect(await closing.committed(account.id, account.apiKey)).toBe(true);

        // Paused after the COMMIT, nothing after it has run: the closing writes are in Redis already.
        expect({
          issuance: await issuance(account.apiKey),
          balanceWithKey: await balance(user, account.apiKey),
          balanceWithToken: await balance(user, token),
        }).toEqual({ issuance: 401, balanceWithKey: closing.balanceWithKey, balanceWithToken: closing.balanceWithToken });
        expect(await fx.access.findKey(hashSecret(account.apiKey))).toEqual(closing.keyRecord);

        user.child.kill('SIGUSR2');
        expect(await change).toBe(200);
        expect(user.output()).toContain('RESUMED AT access-after-commit');
        expect(await issuance(account.apiKey)).toBe(401);
      } finally {
        await fx.stop(user);
      }
    },
    120_000,
  );
});
