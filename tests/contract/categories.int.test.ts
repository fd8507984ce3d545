/**
 * CONTRACT §4.5: `GET /api/v2/categories` — the IAB rows, both orders, XML, caching, credentials — and
 * two replicas of one database serving the same list.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { eventually, uniqueId } from '@platform/testing';
import {
  FORMATS,
  JSON_TYPE,
  XML_DECLARATION,
  XML_TYPE,
  abcOrder,
  bearer,
  call,
  expectBody,
  iabOrder,
  iabRowsOfTsv,
  invalidField,
  unauthorized,
  unknownKey,
  withFormat,
  xmlOf,
  usePlatform,
  type Category,
  type HttpRequest,
} from './support';

const { platform, send, freshKey, rotate, admin } = usePlatform({ replicaCategorization: true });

describe('§4.5 categories', () => {
  const PATH = '/api/v2/categories';
  const list = async (query: Record<string, string> = {}): Promise<Category[]> => {
    const reply = await send('categorization', PATH, { query });
    expect(reply.status).toBe(200);
    return reply.json() as Category[];
  };
  const created: string[] = [];
  const createCategory = async (name: string, parent: string | null): Promise<Category> => {
    const reply = await admin('POST', '/admin/v1/categories', { name, parent });
    expect(reply.status).toBe(201);
    const category = reply.json() as Category;
    created.push(category.id);
    return category;
  };

  afterAll(async () => {
    for (const id of created.reverse()) await admin('DELETE', `/admin/v1/categories/${id}`);
  });

  it('when listed without a credential, then 200, a bare JSON array, and its IAB rows are exactly the 698 topical rows of the TSV', async () => {
    const reply = await send('categorization', PATH);
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: JSON_TYPE });
    expect(reply.text.startsWith('[')).toBe(true);
    const iab = (reply.json() as Category[]).filter((category) => category.id.startsWith('IAB-'));
    const tsv = iabRowsOfTsv();
    expect(tsv).toHaveLength(698);
    expect(iab).toEqual([...tsv].sort(iabOrder));
  });

  it('when listed, then every entry is exactly {id, name, parent} and every parent is in the list', async () => {
    const categories = await list();
    const ids = new Set(categories.map((category) => category.id));
    for (const category of categories) {
      expect(Object.keys(category)).toEqual(['id', 'name', 'parent']);
      expect(category.id).toMatch(/^(IAB|CUS)-[1-9][0-9]*$/);
      expect(category.parent === null || ids.has(category.parent)).toBe(true);
    }
  });

  it.each([{}, { order: 'IAB' }, { order: 'iab' }])(
    'when the order is %p, then IAB order (IAB-2 before IAB-10, CUS- after IAB- on equal integers)',
    async (query) => {
      await createCategory(`Contract order ${uniqueId()}`, 'IAB-1');
      await createCategory(`Contract order ${uniqueId()}`, null);
      const categories = await list(query);
      expect(categories).toEqual([...categories].sort(iabOrder));
      const ids = categories.map((category) => category.id);
      expect(ids.indexOf('IAB-2')).toBeLessThan(ids.indexOf('IAB-10'));
      expect(ids[0]).toBe('IAB-1');
      const custom = categories.filter((category) => category.id.startsWith('CUS-'));
      for (const category of custom) {
        const twin = ids.indexOf(`IAB-${category.id.slice(4)}`);
        // -1 (no IAB twin) is before any index as well.
        expect(twin).toBeLessThan(ids.indexOf(category.id));
      }
    },
  );

  it('when order is an empty parameter, then it counts as not given: IAB order', async () => {
    const categories = await list({ order: '' });
    expect(categories).toEqual([...categories].sort(iabOrder));
  });

  it.each(['ABC', 'abc', 'Abc'])('when order is %p, then by name (case-insensitive collator), ties in IAB order', async (order) => {
    const twin = await createCategory('automotive', 'IAB-2');
    const categories = await list({ order });
    expect(categories).toEqual([...categories].sort(abcOrder));
    const ids = categories.map((category) => category.id);
    expect(ids.indexOf(twin.id)).toBe(ids.indexOf('IAB-1') + 1);
    await admin('DELETE', `/admin/v1/categories/${twin.id}`);
  });

  it.each<[string, string]>([
    ['IAB', `${XML_DECLARATION}<xml><item><id>IAB-1</id><name>Automotive</name><parent/></item>`],
    ['ABC', `${XML_DECLARATION}<xml><item>`],
  ])('when outputFormat is XML with order %s, then the exact XML of the same list (<item>, <parent/>, &amp;)', async (order, start) => {
    await createCategory(`Contract <xml> & "co" — Ünïcødé 日本 🚁 ${uniqueId()}`, 'IAB-1');
    const json = await list({ order });
    const reply = await send('categorization', PATH, { query: { order, outputFormat: 'XML' } });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: XML_TYPE });
    expect(reply.text).toBe(xmlOf(json));
    expect(reply.text.startsWith(start)).toBe(true);
  });

  it.each<[string, Record<string, string | readonly string[]> | string]>([
    ['XYZ', { order: 'XYZ' }],
    ['name', { order: 'name' }],
    ['repeated', { order: ['IAB', 'ABC'] }],
    ['structured', 'order[by]=IAB'],
  ])('when order is %s, then 422 with the order message, in JSON and XML', async (_case, query) => {
    for (const format of FORMATS) {
      const formatted =
        typeof query === 'string' ? `${query}${format === 'XML' ? '&outputFormat=XML' : ''}` : { ...query, ...withFormat(format) };
      expectBody(await send('categorization', PATH, { query: formatted }), 422, invalidField('order', 'order'), format);
    }
  });

  it('when order and outputFormat are both bad, then both are reported in one 422', async () => {
    const reply = await send('categorization', PATH, { query: { order: 'XYZ', outputFormat: 'HTML' } });
    expect({ status: reply.status, body: reply.json() }).toEqual({
      status: 422,
      body: {
        code: 422,
        messages: { order: ['The selected order is invalid.'], outputFormat: ['The selected output format is invalid.'] },
      },
    });
  });

  describe('caching: strong ETag per representation, Cache-Control public, max-age=300, If-None-Match → 304', () => {
    const REPRESENTATIONS = [
      { order: 'IAB', outputFormat: 'JSON' },
      { order: 'IAB', outputFormat: 'XML' },
      { order: 'ABC', outputFormat: 'JSON' },
      { order: 'ABC', outputFormat: 'XML' },
    ];
    const etags = async (): Promise<string[]> =>
      Promise.all(
        REPRESENTATIONS.map(async (query) => {
          const reply = await send('categorization', PATH, { query });
          expect({ status: reply.status, cacheControl: reply.header('cache-control') }).toEqual({
            status: 200,
            cacheControl: 'public, max-age=300',
          });
          return reply.header('etag') ?? '';
        }),
      );

    it('when the four representations are fetched, then each has its own strong ETag', async () => {
      const tags = await etags();
      for (const tag of tags) expect(tag).toMatch(/^"[^"]+"$/);
      expect(new Set(tags).size).toBe(4);
    });

    it('when If-None-Match carries the current ETag, then 304 with no body, the same ETag and Cache-Control', async () => {
      const tags = await etags();
      for (const [index, query] of REPRESENTATIONS.entries()) {
        const reply = await send('categorization', PATH, { query, headers: { 'If-None-Match': tags[index] ?? '' } });
        expect({ status: reply.status, text: reply.text, etag: reply.header('etag'), cacheControl: reply.header('cache-control') }).toEqual(
          {
            status: 304,
            text: '',
            etag: tags[index],
            cacheControl: 'public, max-age=300',
          },
        );
        expect(reply.header('x-request-id')).toMatch(/\S/);
      }
    });

    it('when order is spelled abc or ABC, then it is one representation with one ETag', async () => {
      const tags = await Promise.all(
        ['abc', 'ABC', 'Abc'].map(async (order) => (await send('categorization', PATH, { query: { order } })).header('etag')),
      );
      expect(new Set(tags).size).toBe(1);
    });

    it('when If-None-Match carries the ETag of another representation, then 200 with the body', async () => {
      const [iabJson, iabXml] = await etags();
      const reply = await send('categorization', PATH, {
        query: { order: 'IAB', outputFormat: 'JSON' },
        headers: { 'If-None-Match': iabXml ?? '' },
      });
      expect({ status: reply.status, etag: reply.header('etag') }).toEqual({ status: 200, etag: iabJson });
      expect(reply.text.startsWith('[')).toBe(true);
    });

    it('when a category is created, then every ETag changes and the old ETag gets 200 with the new list', async () => {
      const before = await etags();
      const category = await createCategory(`Contract etag ${uniqueId()}`, 'IAB-1');
      const after = await etags();
      for (const [index, tag] of after.entries()) expect(tag).not.toBe(before[index]);
      const reply = await send('categorization', PATH, { headers: { 'If-None-Match': before[0] ?? '' } });
      expect(reply.status).toBe(200);
      expect((reply.json() as Category[]).some((entry) => entry.id === category.id)).toBe(true);
    });
  });

  it.each<[string, () => Promise<HttpRequest>]>([
    ['an empty apiKey (not given)', () => Promise.resolve({ query: { apiKey: '' } })],
    ['a valid key as apiKey', async () => ({ query: { apiKey: await freshKey() } })],
    ['a valid token as apiKey', async () => ({ query: { apiKey: await platform.token(await freshKey()) } })],
    ['a valid token as Bearer', async () => ({ headers: bearer(await platform.token(await freshKey())) })],
  ])('when the request sends %s, then 200', async (_case, request) => {
    expect((await send('categorization', PATH, await request())).status).toBe(200);
  });

  it.each<[string, () => Promise<HttpRequest>]>([
    ['an unknown key as apiKey', () => Promise.resolve({ query: { apiKey: unknownKey() } })],
    ['a garbled apiKey', () => Promise.resolve({ query: { apiKey: 'nope' } })],
    ['a bad Bearer token', () => Promise.resolve({ headers: bearer('tk_nope') })],
    [
      'a token issued before a key rotation',
      async () => {
        const apiKey = await freshKey();
        const token = await platform.token(apiKey);
        await rotate(apiKey);
        return { query: { apiKey: token } };
      },
    ],
  ])('when the request sends %s, then a sent credential must be valid: 401 in JSON and XML', async (_case, request) => {
    const prepared = await request();
    for (const format of FORMATS) {
      const query = { ...(prepared.query as Record<string, string>), ...withFormat(format) };
      expectBody(await send('categorization', PATH, { ...prepared, query }), 401, unauthorized, format);
    }
  });
});

describe('§4.5 categories on two replicas of one database', () => {
  const PATH = '/api/v2/categories';
  const QUERIES = [{}, { outputFormat: 'XML' }, { order: 'ABC' }, { order: 'ABC', outputFormat: 'XML' }];
  const snapshot = (base: string): Promise<Array<{ etag: string | null; text: string }>> =>
    Promise.all(
      QUERIES.map(async (query) => {
        const reply = await call(base, PATH, { query });
        return { etag: reply.header('etag'), text: reply.text };
      }),
    );
  const agree = async (): Promise<true | undefined> =>
    JSON.stringify(await snapshot(platform.categorization)) === JSON.stringify(await snapshot(platform.replicaCategorization))
      ? true
      : undefined;

  it('when both replicas hold the same categories (the second start imported nothing twice), then bodies and ETags are identical', async () => {
    await eventually(agree, 5_000, 'replicas agree');
    const [first] = await snapshot(platform.replicaCategorization);
    expect((JSON.parse(first?.text ?? '[]') as Category[]).filter((category) => category.id.startsWith('IAB-'))).toHaveLength(698);
  });

  it('when a category is created and deleted on one replica, then the other serves each change, with the same ETags, within its poll interval', async () => {
    await eventually(agree, 5_000, 'replicas agree before');
    const before = await snapshot(platform.replicaCategorization);
    const created = await admin('POST', '/admin/v1/categories', { name: `Replicated ${uniqueId()}`, parent: 'IAB-1' });
    expect(created.status).toBe(201);
    const { id } = created.json() as Category;
    await eventually(agree, 5_000, 'replica sees the creation');
    const after = await snapshot(platform.replicaCategorization);
    expect(after[0]?.text).toContain(`"id":"${id}"`);
    for (const [index, entry] of after.entries()) expect(entry.etag).not.toBe(before[index]?.etag);
    expect((await admin('DELETE', `/admin/v1/categories/${id}`)).status).toBe(204);
    await eventually(agree, 5_000, 'replica sees the deletion');
    expect((await snapshot(platform.replicaCategorization))[0]?.text).not.toContain(`"id":"${id}"`);
  });
});
