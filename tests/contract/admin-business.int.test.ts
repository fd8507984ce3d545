/**
 * CONTRACT §7 ("running the business from the console"): the product catalogue for operators,
 * and the headers of admin answers that carry account data. Black-box, over HTTP; expectations
 * come from the contract (oracles in `support/`).
 */
import { mountedPaths } from '@platform/kernel';
import { uniqueId } from '@platform/testing';
import { ADMIN_TOKEN, SUPPORT_TOKEN, adminCatalogue, bearer, codeMessages, expectBody, usePlatform, type Reply } from './support';
import { DECLARED_ROUTES } from './support/declared-endpoints';

const { send, admin } = usePlatform();

const get = (path: string, token = ADMIN_TOKEN): Promise<Reply> => send('user', path, { headers: bearer(token) });
const privateHeaders = (reply: Reply) => ({
  status: reply.status,
  cacheControl: reply.header('cache-control'),
  nosniff: reply.header('x-content-type-options'),
});
const PRIVATE = { cacheControl: 'no-store', nosniff: 'nosniff' };

describe('§7 GET /admin/v1/products', () => {
  it.each([
    ['an admin', ADMIN_TOKEN],
    ['a support', SUPPORT_TOKEN],
  ])('when %s token asks, then every product by id with the ids of its pool', async (_who, token) => {
    expectBody(await get('/admin/v1/products', token), 200, { data: adminCatalogue() });
  });
});

describe('§7 admin answers that carry account data', () => {
  let id: number;
  beforeAll(async () => {
    id = (
      (await admin('POST', '/admin/v1/accounts', { email: `${uniqueId('headers')}@example.test`, credits: { 1: 5 } })).json() as {
        id: number;
      }
    ).id;
  });

  const accountReads = DECLARED_ROUTES.user
    .filter((route) => route.methods.includes('get'))
    .flatMap((route) => mountedPaths(route))
    .filter((path) => path.startsWith('/admin/v1/') && path !== '/admin/v1/products');

  it.each(accountReads)('when GET %s answers, then Cache-Control: no-store and nosniff', async (path) => {
    expect(privateHeaders(await get(path.replace('{id}', String(id))))).toEqual({ status: 200, ...PRIVATE });
  });

  it('when an admin write answers with account data, then Cache-Control: no-store and nosniff', async () => {
    const topUp = await admin('POST', `/admin/v1/accounts/${id}/credits`, { productId: 1, amount: 1 });
    expect(privateHeaders(topUp)).toEqual({ status: 200, ...PRIVATE });
    const patched = await send('user', `/admin/v1/accounts/${id}`, {
      method: 'PATCH',
      headers: bearer(ADMIN_TOKEN),
      json: { disabled: false },
    });
    expect(privateHeaders(patched)).toEqual({ status: 200, ...PRIVATE });
    expect(privateHeaders(await get('/admin/v1/accounts/987654321'))).toEqual({ status: 404, ...PRIVATE });
  });
});

describe('§7 GET /admin/v1/accounts: status and balance filters, pools on each item', () => {
  const tag = uniqueId('filters').toLowerCase();
  const accounts: Record<string, { id: number; apiKey: string; createdAt: string }> = {};
  const open = async (name: string, credits: Record<number, number>): Promise<void> => {
    const reply = await admin('POST', '/admin/v1/accounts', { email: `${name}.${tag}@example.test`, credits });
    accounts[name] = reply.json() as { id: number; apiKey: string; createdAt: string };
  };
  const idOf = (name: string): number => accounts[name]?.id ?? -1;
  const found = async (query: Record<string, string>): Promise<number[]> => {
    const reply = await send('user', '/admin/v1/accounts', { headers: bearer(SUPPORT_TOKEN), query: { q: tag, ...query } });
    expect(reply.status).toBe(200);
    return (reply.json() as { data: Array<{ id: number }> }).data.map((item) => item.id);
  };

  beforeAll(async () => {
    await open('full', { 1: 100, 7: 50 });
    await open('low', { 1: 100, 7: 9 });
    await open('empty', { 1: 0, 7: 50 });
    await open('raised', { 1: 100 });
    await open('off', { 1: 100 });
    // The account's own threshold: 100 credits are low under a threshold of 150.
    const settings = await send('user', '/user-service/notification-settings', {
      query: { apiKey: accounts.raised?.apiKey ?? '' },
      json: { lowBalanceAlert: { threshold: 150 } },
    });
    expect(settings.status).toBe(200);
    const disabled = await send('user', `/admin/v1/accounts/${idOf('off')}`, {
      method: 'PATCH',
      headers: bearer(ADMIN_TOKEN),
      json: { disabled: true },
    });
    expect(disabled.status).toBe(200);
  });

  it("when no filter is given, then every account, newest first, each with its pools' credits", async () => {
    const reply = await send('user', '/admin/v1/accounts', { headers: bearer(ADMIN_TOKEN), query: { q: `low.${tag}` } });
    expectBody(reply, 200, {
      data: [
        {
          id: idOf('low'),
          email: `low.${tag}@example.test`,
          createdAt: accounts.low?.createdAt,
          disabled: false,
          pools: [
            { pool: [1, 24], credits: 100 },
            { pool: [7], credits: 9 },
          ],
        },
      ],
      nextCursor: null,
    });
  });

  it.each<[Record<string, string>, string[]]>([
    [{}, ['off', 'raised', 'empty', 'low', 'full']],
    [{ status: 'active' }, ['raised', 'empty', 'low', 'full']],
    [{ status: 'disabled' }, ['off']],
    [{ balance: 'low' }, ['raised', 'empty', 'low']],
    [{ balance: 'empty' }, ['empty']],
    [{ status: 'disabled', balance: 'low' }, []],
  ])('when filtered by %j, then exactly those accounts', async (query, names) => {
    expect(await found(query)).toEqual(names.map(idOf));
  });

  it('when a filtered list is paged, then the pages hold the filtered accounts only', async () => {
    const first = await send('user', '/admin/v1/accounts', { headers: bearer(ADMIN_TOKEN), query: { q: tag, balance: 'low', limit: '2' } });
    const page = first.json() as { data: Array<{ id: number }>; nextCursor: string };
    expect(page.data.map((item) => item.id)).toEqual([idOf('raised'), idOf('empty')]);
    expect(await found({ balance: 'low', limit: '2', cursor: page.nextCursor })).toEqual([idOf('low')]);
  });

  it.each([
    [{ status: 'gone' }, { status: ['The selected status is invalid.'] }],
    [{ balance: 'zero' }, { balance: ['The selected balance is invalid.'] }],
    [
      { status: 'ACTIVE', balance: 'LOW' },
      { status: ['The selected status is invalid.'], balance: ['The selected balance is invalid.'] },
    ],
  ])('when %j, then 422 naming the field', async (query, messages) => {
    expectBody(await get(`/admin/v1/accounts?${new URLSearchParams(query).toString()}`), 422, codeMessages(422, messages));
  });
});
