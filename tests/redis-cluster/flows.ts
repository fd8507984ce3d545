import { accessLayout, hashSecret, tokenShardTag } from '@platform/credentials';
import { newAccount, seenBy, STRICT_FAILURES, tokenOf, TOKEN_RATE, type client, type ClusterPlatform, type FlowPlatform } from './platform';

/**
 * The contract's flows as every Redis form must run them (CONTRACT §1, §3): token, balance,
 * usage, key rotation and revocation; the issuance window across rotations; a rotation frees the
 * replaced key's tokens; the failure limits. `get`: the platform, once beforeAll has started it.
 */
export function contractFlows(get: () => FlowPlatform): void {
  let platform: ClusterPlatform;
  let calls: ReturnType<typeof client>;
  beforeAll(() => {
    ({ platform, calls } = get());
  });

  test('when an account mints, reads, is debited and rotates its key, then every service agrees, and the old key’s tokens are gone from Redis', async () => {
    const account = await newAccount(calls, { 1: 100 });
    const token = await tokenOf(calls, account.apiKey);
    expect(await seenBy(calls, token)).toEqual({ user: 200, categorization: 200, introspection: true });
    expect((await calls.debit(token, 1, 3)).status).toBe(200);
    expect(((await calls.balance(token)).body as { data: unknown[] }).data).toContainEqual(
      expect.objectContaining({ product_id: 1, credits: 97 }),
    );
    expect((await calls.usageHistory(token)).body).toEqual({ data: [expect.objectContaining({ product_id: 1, credits_used: 3 })] });

    const layout = accessLayout(platform.prefix);
    const tokenKey = layout.token(tokenShardTag(token), hashSecret(token));
    expect(await platform.redis.exists(tokenKey, layout.keyTokens(hashSecret(account.apiKey)))).toBe(2);
    const rotated = await calls.rotate(account.apiKey);
    expect(rotated.status).toBe(200);
    expect(await seenBy(calls, token)).toEqual({ user: 401, categorization: 401, introspection: false });
    expect((await calls.mint(account.apiKey)).status).toBe(401);
    // The replaced key's tokens no longer take memory (CONTRACT §3).
    expect(await platform.redis.exists(tokenKey, layout.keyTokens(hashSecret(account.apiKey)))).toBe(0);
    expect(await seenBy(calls, await tokenOf(calls, (rotated.body as { apiKey: string }).apiKey))).toEqual({
      user: 200,
      categorization: 200,
      introspection: true,
    });
  });

  test('when an account rotates its key inside the issuance window, then TOKEN_RATE_PER_ACCOUNT counts on across the rotation', async () => {
    const account = await newAccount(calls);
    for (let index = 0; index < TOKEN_RATE - 1; index += 1) await tokenOf(calls, account.apiKey);
    const rotated = await calls.rotate(account.apiKey);
    expect(rotated.status).toBe(200);
    const again = await calls.rotate((rotated.body as { apiKey: string }).apiKey);
    expect(again.status).toBe(200);
    const newKey = (again.body as { apiKey: string }).apiKey;
    expect((await calls.mint(newKey)).status).toBe(200);
    const limited = await calls.mint(newKey);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('when one address fails too often, then the failure limit on the cluster answers 429', async () => {
    const wrong = 'at_wrongwrongwrongwrongwrongwron';
    const statuses: number[] = [];
    for (let index = 0; index <= STRICT_FAILURES; index += 1) statuses.push((await calls.mint(wrong, platform.strictAuth)).status);
    expect(statuses).toEqual([...Array<number>(STRICT_FAILURES).fill(401), 429]);
  });
}
