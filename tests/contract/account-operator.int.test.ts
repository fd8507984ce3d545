/**
 * CONTRACT §7 ("what an operator of the business needs"): search, PATCH (e-mail, disabled),
 * the operator's key rotation, the ledger and the audit log, each with its 200, 401, 404, 422
 * and 409 answers; a disabled account is refused by every service at once.
 * Black-box, over HTTP: every expectation is written from the contract.
 */
import { uniqueId } from '@platform/testing';
import {
  ADMIN_TOKEN,
  API_KEY_PATTERN,
  ISO_8601,
  NOT_FOUND,
  bearer,
  codeMessages,
  expectBody,
  serviceJwt,
  unauthorized,
  usePlatform,
  type Reply,
} from './support';

const { send, admin, platform, balanceOf, isActive } = usePlatform({ categorization: true });

const email = (): string => `${uniqueId('operator')}@example.test`;
const patch = (id: number | string, json: unknown, token = ADMIN_TOKEN): Promise<Reply> =>
  send('user', `/admin/v1/accounts/${id}`, { method: 'PATCH', headers: bearer(token), json });
const get = (path: string, query: Record<string, string> = {}, token = ADMIN_TOKEN): Promise<Reply> =>
  send('user', path, { headers: bearer(token), query });
const EMAIL_TAKEN = codeMessages(409, 'An account with this e-mail already exists.');

async function created(
  credits: Record<number, number> = { 1: 100 },
): Promise<{ id: number; apiKey: string; email: string; createdAt: string }> {
  const reply = await admin('POST', '/admin/v1/accounts', { email: email(), credits });
  expect(reply.status).toBe(201);
  return reply.json() as { id: number; apiKey: string; email: string; createdAt: string };
}

/** What the three services answer to a credential: balance, categories, introspection. */
async function seenBy(credential: string): Promise<{ user: number; categorization: number; introspection: unknown }> {
  const categories = await send('categorization', '/api/v2/categories', { query: { apiKey: credential } });
  return {
    user: (await balanceOf(credential)).status,
    categorization: categories.status,
    introspection: await isActive(credential),
  };
}

describe('§7 GET /admin/v1/accounts (search)', () => {
  it('when searched by e-mail in another case, then the one account, with disabled, and no next page', async () => {
    const account = await created();
    expectBody(await get('/admin/v1/accounts', { email: account.email.toUpperCase() }), 200, {
      data: [
        { id: account.id, email: account.email, createdAt: account.createdAt, disabled: false, pools: [{ pool: [1, 24], credits: 100 }] },
      ],
      nextCursor: null,
    });
  });

  it('when q is a substring of the e-mails or an id, then the matches newest first, paged by the cursor', async () => {
    const tag = uniqueId('shared').toLowerCase();
    const ids: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const reply = await admin('POST', '/admin/v1/accounts', { email: `a${index}.${tag}@example.test` });
      ids.push((reply.json() as { id: number }).id);
    }
    const first = (await get('/admin/v1/accounts', { q: tag.toUpperCase(), limit: '2' })).json() as {
      data: Array<{ id: number }>;
      nextCursor: string;
    };
    expect(first.data.map((item) => item.id)).toEqual([ids[2], ids[1]]);
    expect(typeof first.nextCursor).toBe('string');
    const second = (await get('/admin/v1/accounts', { q: tag, limit: '2', cursor: first.nextCursor })).json();
    expect(second).toMatchObject({ data: [{ id: ids[0] }], nextCursor: null });
    expect(
      ((await get('/admin/v1/accounts', { q: String(ids[1]) })).json() as { data: Array<{ id: number }> }).data.map((item) => item.id),
    ).toContain(ids[1]);
  });

  it('when a LIKE wildcard is searched, then it matches itself only', async () => {
    expectBody(await get('/admin/v1/accounts', { q: `%_${uniqueId('none')}` }), 200, { data: [], nextCursor: null });
  });

  it.each([
    ['limit 0', { limit: '0' }, { limit: ['The selected limit is invalid.'] }],
    ['limit 101', { limit: '101' }, { limit: ['The selected limit is invalid.'] }],
    ['a forged cursor', { cursor: 'not-a-cursor' }, { cursor: ['The selected cursor is invalid.'] }],
  ])('when %s, then 422 naming the field', async (_what, query, messages) => {
    expectBody(await get('/admin/v1/accounts', query), 422, codeMessages(422, messages));
  });

  it('when the admin token is wrong, then 401', async () => {
    expectBody(await get('/admin/v1/accounts', {}, `${ADMIN_TOKEN}x`), 401, unauthorized);
  });
});

describe('§7 PATCH /admin/v1/accounts/:id', () => {
  it('when disabled, then its key and tokens are refused by every service at once; enabling gives the same key back, not the tokens', async () => {
    const account = await created();
    const token = await platform.token(account.apiKey);
    expect(await seenBy(token)).toEqual({ user: 200, categorization: 200, introspection: expect.objectContaining({ active: true }) });

    const disabled = await patch(account.id, { disabled: true });
    expectBody(disabled, 200, { id: account.id, email: account.email, createdAt: account.createdAt, disabled: true });
    expect(await seenBy(token)).toEqual({ user: 401, categorization: 401, introspection: { active: false } });
    expect(await seenBy(account.apiKey)).toMatchObject({ user: 401, categorization: 401 });
    expect((await admin('GET', `/admin/v1/accounts/${account.id}`)).json()).toMatchObject({ disabled: true });

    expectBody(await patch(account.id, { disabled: false }), 200, {
      id: account.id,
      email: account.email,
      createdAt: account.createdAt,
      disabled: false,
    });
    expect(await seenBy(token)).toEqual({ user: 401, categorization: 401, introspection: { active: false } });
    expect((await balanceOf(account.apiKey)).status).toBe(200);
    expect(await seenBy(await platform.token(account.apiKey))).toMatchObject({ user: 200, categorization: 200 });
  });

  it('when the e-mail changes, then the account is found by the new one; another account’s e-mail is 409', async () => {
    const [account, other] = [await created(), await created()];
    const renamed = email();
    expectBody(await patch(account.id, { email: renamed }), 200, {
      id: account.id,
      email: renamed,
      createdAt: account.createdAt,
      disabled: false,
    });
    expect(((await get('/admin/v1/accounts', { email: renamed })).json() as { data: unknown[] }).data).toHaveLength(1);
    expectBody(await patch(account.id, { email: other.email.toUpperCase() }), 409, EMAIL_TAKEN);
  });

  it.each([
    ['an empty body', {}, { email: ['The email field is required when disabled is not present.'] }],
    ['a bad e-mail', { email: 'not-an-address' }, { email: ['The selected email is invalid.'] }],
    ['disabled as a string', { disabled: 'yes' }, { disabled: ['The selected disabled is invalid.'] }],
  ])('when %s is sent, then 422', async (_what, json, messages) => {
    const account = await created();
    expectBody(await patch(account.id, json), 422, codeMessages(422, messages));
  });

  it('when the id is unknown, then 404; a wrong token, 401', async () => {
    expectBody(await patch(987654321, { disabled: true }), 404, NOT_FOUND);
    expectBody(await patch(1, { disabled: true }, `${ADMIN_TOKEN}x`), 401, unauthorized);
  });
});

describe('§7 POST /admin/v1/accounts/:id/api-key', () => {
  it('when the operator rotates, then a new key; the old key and its tokens are refused everywhere', async () => {
    const account = await created();
    const token = await platform.token(account.apiKey);
    const reply = await send('user', `/admin/v1/accounts/${account.id}/api-key`, { method: 'POST', headers: bearer(ADMIN_TOKEN) });
    expect(reply.status).toBe(200);
    expect(reply.header('cache-control')).toBe('no-store');
    const { apiKey } = reply.json() as { apiKey: string };
    expect(apiKey).toMatch(API_KEY_PATTERN);
    expect(await seenBy(token)).toEqual({ user: 401, categorization: 401, introspection: { active: false } });
    expect((await balanceOf(account.apiKey)).status).toBe(401);
    expect((await balanceOf(apiKey)).status).toBe(200);
  });

  it('when the account is disabled, then the new key works only once it is enabled', async () => {
    const account = await created();
    await patch(account.id, { disabled: true });
    const { apiKey } = (
      await send('user', `/admin/v1/accounts/${account.id}/api-key`, { method: 'POST', headers: bearer(ADMIN_TOKEN) })
    ).json() as {
      apiKey: string;
    };
    expect((await balanceOf(apiKey)).status).toBe(401);
    await patch(account.id, { disabled: false });
    expect((await balanceOf(apiKey)).status).toBe(200);
    expect((await balanceOf(account.apiKey)).status).toBe(401);
  });

  it('when the id is unknown, then 404; a wrong token, 401', async () => {
    expectBody(
      await send('user', '/admin/v1/accounts/987654321/api-key', { method: 'POST', headers: bearer(ADMIN_TOKEN) }),
      404,
      NOT_FOUND,
    );
    expectBody(
      await send('user', '/admin/v1/accounts/1/api-key', { method: 'POST', headers: bearer(`${ADMIN_TOKEN}x`) }),
      401,
      unauthorized,
    );
  });
});

describe('§7 GET /admin/v1/accounts/:id/ledger', () => {
  it('when credits were given, adjusted and used, then every change newest first with cause, delta, credits after, actor and time', async () => {
    const account = await created({ 1: 10 });
    await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 24, amount: -4 });
    const usage = await send('user', '/internal/v1/usage', {
      headers: bearer(serviceJwt()),
      json: { credential: account.apiKey, productId: 1, units: 2, requestId: uniqueId('ledger') },
    });
    expect(usage.status).toBe(200);
    const reply = await get(`/admin/v1/accounts/${account.id}/ledger`);
    expect(reply.status).toBe(200);
    const body = reply.json() as { data: Array<Record<string, unknown>>; nextCursor: null };
    expect(body.data.map(({ productId, delta, credits, cause, actor }) => ({ productId, delta, credits, cause, actor }))).toEqual([
      { productId: 1, delta: -2, credits: 4, cause: 'usage', actor: 'usage' },
      { productId: 1, delta: -4, credits: 6, cause: 'adjustment', actor: 'admin' },
      { productId: 1, delta: 10, credits: 10, cause: 'top-up', actor: 'admin' },
    ]);
    for (const row of body.data) expect(row.at).toMatch(ISO_8601);
    expect(body.nextCursor).toBeNull();
    const paged = (await get(`/admin/v1/accounts/${account.id}/ledger`, { limit: '1' })).json() as { nextCursor: string };
    expect(
      ((await get(`/admin/v1/accounts/${account.id}/ledger`, { limit: '2', cursor: paged.nextCursor })).json() as { data: unknown[] }).data,
    ).toHaveLength(2);
  });

  it('when the id is unknown, then 404; a bad limit, 422; a wrong token, 401', async () => {
    const account = await created();
    expectBody(await get('/admin/v1/accounts/987654321/ledger'), 404, NOT_FOUND);
    expectBody(
      await get(`/admin/v1/accounts/${account.id}/ledger`, { limit: 'x' }),
      422,
      codeMessages(422, { limit: ['The selected limit is invalid.'] }),
    );
    expectBody(await get(`/admin/v1/accounts/${account.id}/ledger`, {}, `${ADMIN_TOKEN}x`), 401, unauthorized);
  });
});

describe('§7 GET /admin/v1/audit', () => {
  it("when an operator and the customer change an account, then every write with actor, action, account and details; the customer's own rotation as account", async () => {
    const account = await created({ 1: 5 });
    await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 1, amount: 7, reason: 'goodwill' });
    await patch(account.id, { disabled: true });
    await patch(account.id, { disabled: false });
    expect((await send('user', '/user-service/api-key/generate', { query: { currentApiKey: account.apiKey } })).status).toBe(200);
    const reply = await get('/admin/v1/audit', { accountId: String(account.id) });
    expect(reply.status).toBe(200);
    const { data } = reply.json() as { data: Array<{ at: string; actor: string; action: string; accountId: number; details: unknown }> };
    expect(data.map(({ actor, action, accountId }) => [actor, action, accountId])).toEqual([
      ['account', 'api-key.rotate', account.id],
      ['admin', 'account.update', account.id],
      ['admin', 'account.update', account.id],
      ['admin', 'credits.top-up', account.id],
      ['admin', 'account.create', account.id],
    ]);
    expect(data[1]?.details).toEqual({ disabled: false });
    expect(data[3]?.details).toEqual({ productId: 1, amount: 7, reason: 'goodwill' });
    for (const row of data) expect(row.at).toMatch(ISO_8601);
    expect(JSON.stringify(data)).not.toContain(account.apiKey);
  });

  it('when a change fails (409), then it leaves no audit row', async () => {
    const [account, other] = [await created(), await created()];
    const before = ((await get('/admin/v1/audit', { accountId: String(account.id) })).json() as { data: unknown[] }).data;
    expect((await patch(account.id, { email: other.email, disabled: true })).status).toBe(409);
    expect(((await get('/admin/v1/audit', { accountId: String(account.id) })).json() as { data: unknown[] }).data).toEqual(before);
    expect((await balanceOf(account.apiKey)).status).toBe(200);
  });

  it('when the accountId or the cursor is bad, then 422; a wrong token, 401', async () => {
    expectBody(
      await get('/admin/v1/audit', { accountId: 'x' }),
      422,
      codeMessages(422, { accountId: ['The selected account id is invalid.'] }),
    );
    expectBody(await get('/admin/v1/audit', { cursor: 'AAAA' }), 422, codeMessages(422, { cursor: ['The selected cursor is invalid.'] }));
    expectBody(await get('/admin/v1/audit', {}, `${ADMIN_TOKEN}x`), 401, unauthorized);
  });
});
