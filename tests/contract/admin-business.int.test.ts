/**
 * CONTRACT §7 ("running the business from the console"): the product catalogue for operators,
 * and the headers of admin answers that carry account data. Black-box, over HTTP; expectations
 * come from the contract (oracles in `support/`).
 */
import { mountedPaths } from '@platform/kernel';
import { uniqueId } from '@platform/testing';
import { ADMIN_TOKEN, SUPPORT_TOKEN, adminCatalogue, bearer, expectBody, usePlatform, type Reply } from './support';
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
