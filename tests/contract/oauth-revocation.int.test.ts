/**
 * CONTRACT §4.1: `POST /oauth/revoke` (RFC 7009).
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { type TestAccount } from '@platform/testing';
import { basic, expectBody, seedBearer, unauthorized, unknownKey, usePlatform } from './support';

const { platform, freshKey, balanceOf, revoke, isActive } = usePlatform();

describe('§4.1 POST /oauth/revoke (RFC 7009)', () => {
  it.each<[string, (account: TestAccount) => Record<string, string>]>([
    ['HTTP Basic', (account) => basic(String(account.id), account.apiKey)],
    ['the seed’s Bearer base64(apiKey)', (account) => seedBearer(account.apiKey)],
  ])('when the account revokes its own token by %s, then 200 and the token is refused everywhere', async (_how, headers) => {
    const account = await platform.account({ 1: 5 });
    const [token, kept] = [await platform.token(account.apiKey), await platform.token(account.apiKey)];
    expect((await revoke(token, headers(account))).status).toBe(200);
    expectBody(await balanceOf(token), 401, unauthorized);
    expect(await isActive(token)).toEqual({ active: false });
    expect((await balanceOf(kept)).status).toBe(200);
  });

  it.each<[string, () => Promise<string>]>([
    ['an unknown token', () => Promise.resolve(`tk_${'B'.repeat(49)}`)],
    ['a garbled token', () => Promise.resolve('nonsense')],
  ])('when the account revokes %s, then 200 all the same', async (_case, token) => {
    const account = await platform.account({ 1: 5 });
    expect((await revoke(await token(), basic(String(account.id), account.apiKey))).status).toBe(200);
  });

  it('when an account revokes another account’s token, then 200 but the token stays valid (only own tokens are revoked)', async () => {
    const [owner, other] = [await platform.account({ 1: 5 }), await platform.account({ 1: 5 })];
    const token = await platform.token(owner.apiKey);
    expect((await revoke(token, basic(String(other.id), other.apiKey))).status).toBe(200);
    expect((await balanceOf(token)).status).toBe(200);
    expect(await isActive(token)).toMatchObject({ active: true });
  });

  it.each<[string, () => Promise<Record<string, string>>]>([
    ['no credential', () => Promise.resolve({})],
    ['Basic with an unknown key', async () => basic(String((await platform.account({ 1: 5 })).id), unknownKey())],
    ['the seed’s Bearer of an unknown key', () => Promise.resolve(seedBearer(unknownKey()))],
  ])('when the caller presents %s, then 401 and the token stays valid', async (_case, headers) => {
    const token = await platform.token(await freshKey());
    expect((await revoke(token, await headers())).status).toBe(401);
    expect((await balanceOf(token)).status).toBe(200);
  });
});
