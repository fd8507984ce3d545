/**
 * CONTRACT §4.3: `GET|POST /user-service/account-balance` and the legacy `/service/account-balance`.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import {
  FORMATS,
  XML_DECLARATION,
  balanceItem,
  balanceItems,
  basic,
  bearer,
  expectBody,
  invalidField,
  unauthorized,
  unknownKey,
  withFormat,
  usePlatform,
  type Format,
  type HttpRequest,
} from './support';

const { platform, send, freshKey, balanceOf, revoke } = usePlatform();

describe('§4.3 account balance', () => {
  const HOLDINGS = { 1: 4837993, 14: 50, 28: 7 };
  const ROUTES = ['/user-service/account-balance', '/service/account-balance'].flatMap((path) =>
    (['GET', 'POST'] as const).map((method) => [method, path] as const),
  );
  const balanceRequest = (method: 'GET' | 'POST', params: Record<string, string>): HttpRequest =>
    method === 'GET' ? { query: params } : { json: params };

  it.each(ROUTES.flatMap(([method, path]) => FORMATS.map((format) => [method, path, format] as const)))(
    'when %s %s is asked for every product, then one item per held product ordered by id, pool members sharing credits, exact body in %s',
    async (method, path, format) => {
      const apiKey = await freshKey(HOLDINGS);
      const reply = await send('user', path, { method, ...balanceRequest(method, { apiKey, ...withFormat(format) }) });
      expectBody(reply, 200, { data: balanceItems(HOLDINGS) }, format);
    },
  );

  it('when the XML balance names product 28, then its & is escaped as &amp;', async () => {
    const reply = await balanceOf(await freshKey({ 28: 3 }), { outputFormat: 'XML' });
    expect(reply.text).toBe(
      `${XML_DECLARATION}<xml><data><item><product_id>28</product_id><product><id>28</id><name>Website Contacts &amp; Categorization Database</name></product><credits>3</credits></item></data></xml>`,
    );
  });

  it.each<[string, number]>([
    ['1', 1],
    ['24', 24],
    ['14', 14],
    ['109', 109],
    ['28', 28],
  ])('when productId is %p, then only that product’s item, with its pool’s credits, in JSON and XML', async (productId, id) => {
    const apiKey = await freshKey(HOLDINGS);
    const expected = { data: balanceItems(HOLDINGS).filter((item) => item.product_id === id) };
    expect(expected.data).toHaveLength(1);
    expectBody(await balanceOf(apiKey, { productId }), 200, expected);
    expectBody(await balanceOf(apiKey, { productId, outputFormat: 'XML' }), 200, expected, 'XML');
  });

  it('when productId arrives as a JSON number in a POST body, then it filters as well', async () => {
    const apiKey = await freshKey(HOLDINGS);
    expectBody(await send('user', '/user-service/account-balance', { json: { apiKey, productId: 24 } }), 200, {
      data: [balanceItem(24, HOLDINGS[1])],
    });
  });

  it.each(['7', '63', '101'])(
    'when productId %p is a product the account does not hold, then 200 {"data":[]} (XML <data/>)',
    async (productId) => {
      const apiKey = await freshKey({ 1: 5 });
      expectBody(await balanceOf(apiKey, { productId }), 200, { data: [] });
      expectBody(await balanceOf(apiKey, { productId, outputFormat: 'XML' }), 200, { data: [] }, 'XML');
      expect((await balanceOf(apiKey, { productId, outputFormat: 'XML' })).text).toBe(`${XML_DECLARATION}<xml><data/></xml>`);
    },
  );

  const PRODUCT_INVALID = invalidField('productId', 'product id');
  it.each<[string, Record<string, string | readonly string[]> | string]>([
    ['2 (not a product id)', { productId: '2' }],
    ['0', { productId: '0' }],
    ['999', { productId: '999' }],
    ['abc', { productId: 'abc' }],
    ['-1', { productId: '-1' }],
    ['" 1" (not a numeric string)', { productId: ' 1' }],
    ['1.5', { productId: '1.5' }],
    ['repeated', { productId: ['1', '24'] }],
    ['structured', 'productId[id]=1'],
  ])('when productId is %s, then 422 with the productId message, in JSON and XML', async (_case, filter) => {
    const apiKey = await freshKey({ 1: 5 });
    const query = (format: Format): string => {
      const search = new URLSearchParams({ apiKey, ...withFormat(format) }).toString();
      if (typeof filter === 'string') return `${search}&${filter}`;
      const extra = new URLSearchParams();
      for (const [name, value] of Object.entries(filter))
        for (const item of typeof value === 'string' ? [value] : value) extra.append(name, item);
      return `${search}&${extra.toString()}`;
    };
    for (const format of FORMATS)
      expectBody(await send('user', '/user-service/account-balance', { query: query(format) }), 422, PRODUCT_INVALID, format);
  });

  it.each<[string, () => Promise<HttpRequest>]>([
    ['no credential', () => Promise.resolve({})],
    ['an unknown key', () => Promise.resolve({ query: { apiKey: unknownKey() } })],
    ['a garbled key', () => Promise.resolve({ query: { apiKey: 'hello' } })],
    ['apiKey repeated', async () => ({ query: { apiKey: [await freshKey(), await freshKey()] } })],
    ['a bad Bearer token', () => Promise.resolve({ headers: bearer('tk_garbage') })],
    [
      'a revoked token',
      async () => {
        const account = await platform.account({ 1: 5 });
        const token = await platform.token(account.apiKey);
        await revoke(token, basic(String(account.id), account.apiKey));
        return { headers: bearer(token) };
      },
    ],
  ])('when the request has %s, then 401 in JSON and in XML', async (_case, request) => {
    const prepared = await request();
    for (const format of FORMATS) {
      const query = { ...(prepared.query as Record<string, string>), ...withFormat(format) };
      expectBody(await send('user', '/user-service/account-balance', { ...prepared, query }), 401, unauthorized, format);
    }
  });

  it('when every pool of the account is at 0, then it still reads its balance: 200', async () => {
    expectBody(await balanceOf(await freshKey({ 1: 0, 7: 0 })), 200, { data: balanceItems({ 1: 0, 7: 0 }) });
  });

  it.each<[string, (apiKey: string) => HttpRequest]>([
    ['productId is an empty query parameter', (apiKey) => ({ query: { apiKey, productId: '' } })],
    ['productId is JSON null', (apiKey) => ({ json: { apiKey, productId: null } })],
    ['productId is an empty form field', (apiKey) => ({ form: { apiKey, productId: '' } })],
  ])('when %s, then it counts as not given: every item', async (_case, request) => {
    expectBody(await send('user', '/user-service/account-balance', request(await freshKey(HOLDINGS))), 200, {
      data: balanceItems(HOLDINGS),
    });
  });

  it('when both apiKey and a Bearer token are sent, then apiKey is the credential (Bearer only with no apiKey at all)', async () => {
    const token = await platform.token(await freshKey());
    expectBody(
      await send('user', '/user-service/account-balance', { query: { apiKey: unknownKey() }, headers: bearer(token) }),
      401,
      unauthorized,
    );
  });

  it('when POST account-balance gets apiKey and outputFormat=xml in a form body, then 200 in XML', async () => {
    const reply = await send('user', '/service/account-balance', { form: { apiKey: await freshKey({ 7: 3 }), outputFormat: 'xml' } });
    expectBody(reply, 200, { data: [balanceItem(7, 3)] }, 'XML');
  });

  it('when the account holds nothing, then 200 {"data":[]}', async () => {
    expectBody(await balanceOf(await freshKey({})), 200, { data: [] });
  });
});
