/**
 * CONTRACT §7/§9: the account admin API of the user service (and the §2 answers of the admin and
 * internal endpoints: body syntax and size, JSON only, no WWW-Authenticate).
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { uniqueId } from '@platform/testing';
import {
  DEFAULT_SETTINGS,
  ADMIN_TOKEN,
  API_KEY_PATTERN,
  ISO_8601,
  JSON_TYPE,
  MALFORMED,
  NOT_FOUND,
  TOO_LARGE,
  balanceItem,
  balanceItems,
  bearer,
  type codeMessages,
  expectBody,
  oversizeJson,
  serviceJwt,
  unauthorized,
  usePlatform,
  type Reply,
} from './support';

const { send, balanceOf, admin } = usePlatform({ categorization: true });

describe('§7/§9 account admin API', () => {
  const email = (): string => `${uniqueId('contract')}@example.test`;
  const createAccount = (json: unknown, token?: string): Promise<Reply> => admin('POST', '/admin/v1/accounts', json, token);
  async function created(json: Record<string, unknown>): Promise<{ id: number; apiKey: string; email: string }> {
    const reply = await createAccount(json);
    expect(reply.status).toBe(201);
    return reply.json() as { id: number; apiKey: string; email: string };
  }
  const credit = (id: number | string, json: unknown, token?: string): Promise<Reply> =>
    admin('POST', `/admin/v1/accounts/${id}/credits`, json, token);

  it('when an account is created, then 201 {"id","email","apiKey","createdAt"}, no-store, a well-shaped key that works', async () => {
    const address = email();
    const reply = await createAccount({ email: address, credits: { 1: 100, 14: 50 } });
    expect({ status: reply.status, type: reply.type, cacheControl: reply.header('cache-control') }).toEqual({
      status: 201,
      type: JSON_TYPE,
      cacheControl: 'no-store',
    });
    const body = reply.json() as { id: number; apiKey: string; createdAt: string };
    expect(typeof body.id).toBe('number');
    expect(body.apiKey).toMatch(API_KEY_PATTERN);
    expect(body.createdAt).toMatch(ISO_8601);
    expect(reply.text).toBe(JSON.stringify({ id: body.id, email: address, apiKey: body.apiKey, createdAt: body.createdAt }));
    expectBody(await balanceOf(body.apiKey), 200, { data: balanceItems({ 1: 100, 14: 50 }) });
  });

  it('when credits name one member of a pool, then the account holds every product of that pool', async () => {
    const account = await created({ email: email(), credits: { 24: 5, 109: 7, 28: 1 } });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 24: 5, 109: 7, 28: 1 }) });
  });

  it.each<[string, Record<string, unknown>]>([
    ['credits is absent', {}],
    ['credits is null', { credits: null }],
    ['credits is empty', { credits: {} }],
  ])('when %s, then 201 and the account holds nothing yet', async (_case, extra) => {
    const account = await created({ email: email(), ...extra });
    expectBody(await balanceOf(account.apiKey), 200, { data: [] });
  });

  it('when credits name a pool with 0, then the account holds that pool at 0', async () => {
    const account = await created({ email: email(), credits: { 14: 0 } });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 14: 0 }) });
  });

  it('when credits are numeric strings, then they count as numbers', async () => {
    const account = await created({ email: email(), credits: { 1: '100' } });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 1: 100 }) });
  });

  it.each<[string, (address: string) => unknown]>([
    ['email is missing', () => ({ credits: { 1: 5 } })],
    ['email is not an address', () => ({ email: 'not-an-address' })],
    ['email is an array', (address) => ({ email: [address] })],
    ['two members of one pool are named (1 and 24)', (address) => ({ email: address, credits: { 1: 5, 24: 6 } })],
    ['two members of the research pool are named (14 and 101)', (address) => ({ email: address, credits: { 14: 5, 101: 6 } })],
    ['a product id is not in the catalogue', (address) => ({ email: address, credits: { 2: 5 } })],
    ['credits are negative', (address) => ({ email: address, credits: { 1: -5 } })],
    ['credits are not an integer', (address) => ({ email: address, credits: { 1: 1.5 } })],
    ['credits is an array', (address) => ({ email: address, credits: [1, 2] })],
  ])('when %s, then 422 with a messages object, and no account is created', async (_case, json) => {
    const address = email();
    const reply = await createAccount(json(address));
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    const body = reply.json() as { code: number; messages: unknown };
    expect(body.code).toBe(422);
    expect(typeof body.messages === 'object' && body.messages !== null && !Array.isArray(body.messages)).toBe(true);
    expect((await createAccount({ email: address })).status).toBe(201);
  });

  it.each<[string, (address: string) => string]>([
    ['the same e-mail', (address) => address],
    ['the same e-mail in another case', (address) => address.toUpperCase()],
  ])('when an account is created with %s, then 409 with a messages string', async (_case, again) => {
    const address = email();
    await created({ email: address });
    const reply = await createAccount({ email: again(address) });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 409, type: JSON_TYPE });
    expect(reply.json()).toEqual({ code: 409, messages: expect.any(String) });
  });

  it('when an account is shown, then 200 {"id","email","createdAt","disabled","balances","notifications","webhookDeliveries"} and no key', async () => {
    const address = email();
    const account = await created({ email: address, credits: { 1: 100, 14: 50 } });
    const reply = await admin('GET', `/admin/v1/accounts/${account.id}`);
    const body = reply.json() as { createdAt: string };
    expect(reply.text).toBe(
      JSON.stringify({
        id: account.id,
        email: address,
        createdAt: body.createdAt,
        disabled: false,
        balances: balanceItems({ 1: 100, 14: 50 }),
        notifications: { email: address, ...DEFAULT_SETTINGS, webhook: null },
        webhookDeliveries: [],
      }),
    );
    expect(reply.type).toBe(JSON_TYPE);
    expect(reply.text).not.toContain(account.apiKey);
  });

  it('when an account with no credits is shown, then balances is []', async () => {
    const account = await created({ email: email() });
    expect((await admin('GET', `/admin/v1/accounts/${account.id}`)).json()).toMatchObject({ balances: [] });
  });

  it.each(['987654321', 'abc', '0', '-1', '1.5'])('when account %p is shown, then 404 {"code":404,"messages":"Not found."}', async (id) => {
    expectBody(await admin('GET', `/admin/v1/accounts/${id}`), 404, NOT_FOUND);
  });

  it.each<[string, unknown, number, unknown]>([
    ['a top-up', { productId: 1, amount: 500 }, 600, 1],
    ['a top-up named by the other pool member (productId echoes 24)', { productId: 24, amount: 5 }, 105, 24],
    ['a numeric-string amount', { productId: 1, amount: '50' }, 150, 1],
    ['a negative adjustment', { productId: 1, amount: -30 }, 70, 1],
    ['a negative adjustment beyond the balance (clamped at 0)', { productId: 1, amount: -1000 }, 0, 1],
  ])('when credits get %s, then 200 {"productId","credits"}', async (_case, json, credits, productId) => {
    const account = await created({ email: email(), credits: { 1: 100 } });
    expectBody(await credit(account.id, json), 200, { productId, credits });
    expectBody(await balanceOf(account.apiKey, { productId: '24' }), 200, { data: [balanceItem(24, credits)] });
  });

  it('when credits go to a product the account does not hold, then it becomes held with its whole pool', async () => {
    const account = await created({ email: email(), credits: { 1: 10 } });
    expectBody(await credit(account.id, { productId: 27, amount: 40 }), 200, { productId: 27, credits: 40 });
    expectBody(await balanceOf(account.apiKey), 200, { data: balanceItems({ 1: 10, 27: 40 }) });
  });

  it.each<[string, unknown]>([
    ['productId is missing', { amount: 5 }],
    ['amount is missing', { productId: 1 }],
    ['productId is not in the catalogue', { productId: 2, amount: 5 }],
    ['amount is a negative string', { productId: 1, amount: '-5' }],
    ['amount is not an integer', { productId: 1, amount: 1.5 }],
    ['amount is a word', { productId: 1, amount: 'ten' }],
    ['productId is an array', { productId: [1], amount: 5 }],
  ])('when %s, then 422 with a messages object and the balance is unchanged', async (_case, json) => {
    const account = await created({ email: email(), credits: { 1: 100 } });
    const reply = await credit(account.id, json);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 422, type: JSON_TYPE });
    expect(typeof (reply.json() as { messages: unknown }).messages).toBe('object');
    expectBody(await balanceOf(account.apiKey, { productId: '1' }), 200, { data: [balanceItem(1, 100)] });
  });

  it('when productId is a numeric string, then the top-up is made', async () => {
    const account = await created({ email: email(), credits: { 1: 100 } });
    const reply = await credit(account.id, { productId: '24', amount: '5' });
    expect(reply.status).toBe(200);
    expect((reply.json() as { credits: unknown }).credits).toBe(105);
  });

  it.each<[string, () => Promise<Reply>, number, ReturnType<typeof codeMessages>]>([
    [
      'malformed JSON with the admin token',
      () => send('user', '/admin/v1/accounts', { headers: bearer(ADMIN_TOKEN), raw: { text: '{"email":', type: 'application/json' } }),
      400,
      MALFORMED,
    ],
    [
      'malformed JSON without a token (syntax before credential)',
      () => send('user', '/admin/v1/accounts', { raw: { text: '{"email":', type: 'application/json' } }),
      400,
      MALFORMED,
    ],
    [
      'a body over 16 KiB with the admin token',
      () => send('user', '/admin/v1/accounts', { headers: bearer(ADMIN_TOKEN), raw: { text: oversizeJson(), type: 'application/json' } }),
      413,
      TOO_LARGE,
    ],
    [
      'malformed JSON on the usage API',
      () => send('user', '/internal/v1/usage', { headers: bearer(serviceJwt()), raw: { text: '{"units":', type: 'application/json' } }),
      400,
      MALFORMED,
    ],
    [
      'a body over 16 KiB on the category admin API',
      () =>
        send('categorization', '/admin/v1/categories', {
          headers: bearer(ADMIN_TOKEN),
          raw: { text: oversizeJson(), type: 'application/json' },
        }),
      413,
      TOO_LARGE,
    ],
  ])('when an admin or internal endpoint gets %s, then the §2 answer', async (_case, request, status, body) => {
    expectBody(await request(), status, body);
  });

  it('when credits go to an unknown account, then 404', async () => {
    expectBody(await credit(987654321, { productId: 1, amount: 5 }), 404, NOT_FOUND);
  });

  it.each<[string, () => Promise<Reply>]>([
    ['POST /admin/v1/accounts without a token', () => send('user', '/admin/v1/accounts', { json: { email: email() } })],
    ['POST /admin/v1/accounts with a wrong token', () => createAccount({ email: email() }, `${ADMIN_TOKEN}x`)],
    [
      'POST /admin/v1/accounts with the token in another scheme',
      () => send('user', '/admin/v1/accounts', { headers: { Authorization: `Token ${ADMIN_TOKEN}` }, json: { email: email() } }),
    ],
    [
      'GET /admin/v1/accounts/987654321 with a wrong token (401 before 404)',
      () => admin('GET', '/admin/v1/accounts/987654321', undefined, 'wrong'),
    ],
    ['POST credits with a wrong token and a bad body (401 before 422)', () => credit(1, { productId: 'x' }, 'wrong')],
  ])('when %s, then 401 in JSON with no WWW-Authenticate', async (_case, request) => {
    const reply = await request();
    expectBody(reply, 401, unauthorized);
    expect(reply.header('www-authenticate')).toBeNull();
  });

  it('when the category admin API is asked for XML, then it still answers JSON (JSON only)', async () => {
    const reply = await send('categorization', '/admin/v1/categories/CUS-987654321', {
      method: 'DELETE',
      headers: bearer(ADMIN_TOKEN),
      query: { outputFormat: 'XML' },
    });
    expectBody(reply, 404, NOT_FOUND);
  });

  it('when the admin API is asked for XML, then it still answers JSON (JSON only)', async () => {
    const reply = await send('user', '/admin/v1/accounts/987654321', { headers: bearer(ADMIN_TOKEN), query: { outputFormat: 'XML' } });
    expectBody(reply, 404, NOT_FOUND);
  });
});
