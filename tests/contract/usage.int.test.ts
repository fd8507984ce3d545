/**
 * CONTRACT §7/§9: `POST /internal/v1/usage`, the internal usage API product services debit through.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { uniqueId, type TestAccount } from '@platform/testing';
import {
  ACCESS_RESTRICTED,
  ADMIN_TOKEN,
  JSON_TYPE,
  bearer,
  codeMessages,
  expectBody,
  invalidField,
  nowSeconds,
  serviceJwt,
  unauthorized,
  unknownKey,
  usePlatform,
} from './support';

const { platform, send, freshKey, balanceOf, rotate, admin, usage } = usePlatform();

describe('§7/§9 POST /internal/v1/usage', () => {
  const requestId = (): string => uniqueId('usage-');
  const pool1 = async (apiKey: string): Promise<number> =>
    ((await balanceOf(apiKey, { productId: '1' })).json() as { data: Array<{ credits: number }> }).data[0]?.credits ?? -1;

  it.each<[string, (account: TestAccount, token: string) => Record<string, unknown>, number, number]>([
    ['the key, units 1', (account) => ({ credential: account.apiKey, productId: 1, units: 1 }), 1, 99],
    ['the key, units absent (default 1)', (account) => ({ credential: account.apiKey, productId: 1 }), 1, 99],
    ['a token, units "2" (numeric string)', (_account, token) => ({ credential: token, productId: 1, units: '2' }), 1, 98],
    ['the key, productId 24 (echoed), units 3', (account) => ({ credential: account.apiKey, productId: 24, units: 3 }), 24, 97],
    ['the key, productId "1" (numeric string)', (account) => ({ credential: account.apiKey, productId: '1' }), 1, 99],
    ['the key, units null (not given)', (account) => ({ credential: account.apiKey, productId: 1, units: null }), 1, 99],
  ])('when a product debits with %s, then 200 {"accountId","productId","credits"}', async (_case, body, productId, credits) => {
    const account = await platform.account({ 1: 100 });
    const reply = await usage({ ...body(account, await platform.token(account.apiKey)), requestId: requestId() });
    expectBody(reply, 200, { accountId: account.id, productId, credits });
    expect(await pool1(account.apiKey)).toBe(credits);
  });

  it('when units is 10000, then it is accepted', async () => {
    const account = await platform.account({ 1: 20_000 });
    expectBody(await usage({ credential: account.apiKey, productId: 1, units: 10_000, requestId: requestId() }), 200, {
      accountId: account.id,
      productId: 1,
      credits: 10_000,
    });
  });

  it.each<[string, unknown]>([
    ['0', 0],
    ['10001', 10_001],
    ['-1', -1],
    ['1.5', 1.5],
    ['"abc"', 'abc'],
    ['"-1"', '-1'],
    ['true', true],
    ['an array', [1]],
    ['an object', { n: 1 }],
  ])('when units is %s, then 422 with the units message and nothing is debited', async (_case, units) => {
    const account = await platform.account({ 1: 20_000 });
    expectBody(
      await usage({ credential: account.apiKey, productId: 1, units, requestId: requestId() }),
      422,
      invalidField('units', 'units'),
    );
    expect(await pool1(account.apiKey)).toBe(20_000);
  });

  it.each<[string, Record<string, unknown>]>([
    ['productId is missing', {}],
    ['productId is not in the catalogue', { productId: 2 }],
    ['productId is a word', { productId: 'one' }],
  ])('when %s, then 422 with a productId message', async (_case, body) => {
    const account = await platform.account({ 1: 10 });
    const reply = await usage({ credential: account.apiKey, requestId: requestId(), ...body });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    expect(Object.keys((reply.json() as { messages: Record<string, unknown> }).messages)).toContain('productId');
  });

  it('when the same requestId is replayed with the same body, then the first answer again and nothing more is debited', async () => {
    const account = await platform.account({ 1: 10 });
    const body = { credential: account.apiKey, productId: 1, units: 2, requestId: requestId() };
    const first = await usage(body);
    expectBody(first, 200, { accountId: account.id, productId: 1, credits: 8 });
    await usage({ credential: account.apiKey, productId: 1, units: 1, requestId: requestId() });
    const replay = await usage(body);
    expect({ status: replay.status, text: replay.text }).toEqual({ status: 200, text: first.text });
    expect(await pool1(account.apiKey)).toBe(7);
  });

  it.each<[string, (account: TestAccount, other: TestAccount) => Record<string, unknown>]>([
    ['other units', (account) => ({ credential: account.apiKey, productId: 1, units: 3 })],
    ['another product', (account) => ({ credential: account.apiKey, productId: 7, units: 2 })],
    ['another account (requestIds are global)', (_account, other) => ({ credential: other.apiKey, productId: 1, units: 2 })],
  ])('when a requestId is replayed with %s, then 409 with a messages string and nothing is debited', async (_case, second) => {
    const [account, other] = [await platform.account({ 1: 10, 7: 10 }), await platform.account({ 1: 10 })];
    const id = requestId();
    expect((await usage({ credential: account.apiKey, productId: 1, units: 2, requestId: id })).status).toBe(200);
    const reply = await usage({ ...second(account, other), requestId: id });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
    expect([await pool1(account.apiKey), await pool1(other.apiKey)]).toEqual([8, 10]);
  });

  it.each<[string, Record<number, number>, number]>([
    ['the pool is at 0', { 1: 0 }, 1],
    ['units exceed the pool (a debit fails whole)', { 1: 5 }, 6],
  ])('when %s, then 403 with the contract’s sentence and nothing is debited', async (_case, credits, units) => {
    const account = await platform.account(credits);
    const reply = await usage({ credential: account.apiKey, productId: 1, units, requestId: requestId() });
    expectBody(reply, 403, codeMessages(403, ACCESS_RESTRICTED));
    expect(reply.header('www-authenticate')).toBeNull();
    expect(await pool1(account.apiKey)).toBe(credits[1]);
  });

  it.each<[string, () => string | undefined]>([
    ['no JWT', () => undefined],
    ['a JWT signed with another secret', () => serviceJwt({}, { secret: 'another-secret-another-secret-0123456789' })],
    ['a JWT for audience auth', () => serviceJwt({ aud: 'auth' })],
    ['a JWT without an audience', () => serviceJwt({ aud: undefined })],
    ['a JWT whose audience is a list holding user', () => serviceJwt({ aud: ['auth', 'user'] })],
    ['an expired JWT', () => serviceJwt({ iat: nowSeconds() - 600, exp: nowSeconds() - 60 })],
    ['a JWT whose exp is 10 minutes ahead', () => serviceJwt({ exp: nowSeconds() + 600 })],
    ['a JWT without exp', () => serviceJwt({ exp: undefined })],
    ['a JWT without iss', () => serviceJwt({ iss: undefined })],
    ['a JWT with an empty iss', () => serviceJwt({ iss: '' })],
    ['an unsigned JWT (alg none)', () => serviceJwt({}, { alg: 'none' })],
    ['a JWT signed HS512 instead of HS256', () => serviceJwt({}, { alg: 'HS512' })],
    ['the admin token', () => ADMIN_TOKEN],
  ])('when the caller sends %s, then 401 (JSON, code/messages, no WWW-Authenticate) and nothing is debited', async (_case, jwt) => {
    const account = await platform.account({ 1: 10 });
    const token = jwt();
    const reply = await send('user', '/internal/v1/usage', {
      ...(token === undefined ? {} : { headers: bearer(token) }),
      json: { credential: account.apiKey, productId: 1, requestId: requestId() },
    });
    expect({ status: reply.status, type: reply.type, challenge: reply.header('www-authenticate') }).toEqual({
      status: 401,
      type: JSON_TYPE,
      challenge: null,
    });
    expect(reply.json()).toEqual({ code: 401, messages: expect.any(String) });
    expect(await pool1(account.apiKey)).toBe(10);
  });

  it('when the first answer for a requestId was 403, then it left no row: sent again after a top-up it is debited, once', async () => {
    const account = await platform.account({ 1: 0 });
    const body = { credential: account.apiKey, productId: 1, units: 1, requestId: requestId() };
    expectBody(await usage(body), 403, codeMessages(403, ACCESS_RESTRICTED));
    expect((await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: 5 })).status).toBe(200);
    expectBody(await usage(body), 200, { accountId: account.id, productId: 1, credits: 4 });
    expectBody(await usage(body), 200, { accountId: account.id, productId: 1, credits: 4 });
    expect(await pool1(account.apiKey)).toBe(4);
  });

  it('when one requestId arrives five times at once, then every answer is the same 200 and one debit is made', async () => {
    const account = await platform.account({ 1: 10 });
    const body = { credential: account.apiKey, productId: 1, units: 2, requestId: requestId() };
    const replies = await Promise.all(Array.from({ length: 5 }, () => usage(body)));
    for (const reply of replies) expectBody(reply, 200, { accountId: account.id, productId: 1, credits: 8 });
    expect(await pool1(account.apiKey)).toBe(8);
  });

  it('when ten debits race for a pool of 5, then exactly five are granted and the pool ends at 0, never below', async () => {
    const account = await platform.account({ 1: 5 });
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) =>
        usage({ credential: account.apiKey, productId: index % 2 === 0 ? 1 : 24, requestId: requestId() }),
      ),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 200, 403, 403, 403, 403, 403]);
    expect(await pool1(account.apiKey)).toBe(0);
  });

  it.each<[string, () => string]>([
    ['exp exactly 5 minutes ahead', () => serviceJwt({ exp: nowSeconds() + 300 })],
    ['exp 290 seconds ahead', () => serviceJwt({ exp: nowSeconds() + 290 })],
    ['any non-empty iss', () => serviceJwt({ iss: 'x' })],
  ])('when the caller sends a JWT with %s, then it is accepted', async (_case, jwt) => {
    const account = await platform.account({ 1: 10 });
    expect((await usage({ credential: account.apiKey, productId: 1, requestId: requestId() }, jwt())).status).toBe(200);
  });

  it.each<[string, () => Promise<unknown>]>([
    ['an unknown key', () => Promise.resolve(unknownKey())],
    ['a garbled credential', () => Promise.resolve('garbage')],
    ['no credential', () => Promise.resolve(undefined)],
    [
      'a token issued before a key rotation',
      async () => {
        const apiKey = await freshKey();
        const token = await platform.token(apiKey);
        await rotate(apiKey);
        return token;
      },
    ],
  ])('when the credential is %s, then 401 with the contract’s sentence, before the 422 of a bad body', async (_case, credential) => {
    const value = await credential();
    expectBody(
      await usage({ ...(value === undefined ? {} : { credential: value }), productId: 1, units: 0, requestId: requestId() }),
      401,
      unauthorized,
    );
  });
});
