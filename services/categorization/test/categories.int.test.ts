import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import request from 'supertest';
import { generateAccessToken, generateApiKey, hashSecret } from '@platform/credentials';
import { uniqueId } from '@platform/testing';
import type { Category } from '../src/domain/category';
import {
  credentialsFor,
  customCategories,
  escapeXml,
  ids,
  startService,
  topicalRowsOfTsv,
  type Credentials,
  type StartedService,
} from './helpers';

const PATH = '/api/v2/categories';
const ACCESS_RESTRICTED = { code: 401, messages: 'Access restricted. Check credits balance or enter the correct API key.' };
const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

const numberOf = (id: string): number => Number(id.slice(4));
/** The contract's IAB order: the integer part, IAB- before CUS- on equal integers. */
const iabCompare = (a: Category, b: Category): number =>
  numberOf(a.id) - numberOf(b.id) || (a.id.startsWith('IAB') ? 0 : 1) - (b.id.startsWith('IAB') ? 0 : 1);
const abcCompare = (a: Category, b: Category): number => collator.compare(a.name, b.name) || iabCompare(a, b);
const onlyIab = (list: Category[]): Category[] => list.filter((category) => category.id.startsWith('IAB-'));
const itemXml = (category: Category): string =>
  `<item><id>${category.id}</id><name>${escapeXml(category.name)}</name>${category.parent === null ? '<parent/>' : `<parent>${category.parent}</parent>`}</item>`;

describe('GET /api/v2/categories', () => {
  let started: StartedService;
  let url: string;
  let credentials: Credentials;
  const tsv = topicalRowsOfTsv();
  const custom = customCategories(() => url);
  const createCategory = custom.create;

  beforeAll(async () => {
    // No polling here: the list only changes when this instance changes it, so ETags are stable.
    started = await startService({ CATEGORY_REFRESH_INTERVAL_MS: '3600000' });
    url = started.service.url;
    credentials = await credentialsFor(started.config);
  });

  afterAll(async () => {
    await custom.removeAll();
    await credentials.close();
    await started.service.stop();
  });

  describe('the data', () => {
    it('when listed, then every topical row of the TSV is served: all 698 ids, names and parents', async () => {
      expect(tsv).toHaveLength(698);
      const response = await request(url).get(PATH);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(onlyIab(response.body as Category[])).toEqual(tsv);
    });

    it('when listed, then every category is {id, name, parent} and every parent is in the list', async () => {
      const list = (await request(url).get(PATH)).body as Category[];
      const known = new Set(ids(list));
      for (const category of list) {
        expect(Object.keys(category)).toEqual(['id', 'name', 'parent']);
        expect(category.parent === null || known.has(category.parent)).toBe(true);
      }
    });
  });

  describe('order', () => {
    it('when no order is given, then IAB order: IAB-2 before IAB-10, and custom categories among them by number', async () => {
      const first = await createCategory(`Order A ${uniqueId()}`, 'IAB-1');
      const second = await createCategory(`Order B ${uniqueId()}`, first.id);
      const list = (await request(url).get(PATH)).body as Category[];
      const position = (id: string): number => ids(list).indexOf(id);
      expect(position('IAB-2')).toBeLessThan(position('IAB-10'));
      expect(position('IAB-10')).toBeLessThan(position('IAB-100'));
      for (let index = 1; index < list.length; index += 1) {
        expect(iabCompare(list[index - 1] as Category, list[index] as Category)).toBeLessThan(0);
      }
      for (const custom of [first, second]) {
        const before = list[position(custom.id) - 1] as Category;
        expect(numberOf(before.id)).toBeLessThanOrEqual(numberOf(custom.id));
        if (numberOf(custom.id) <= 698) expect(position(custom.id)).toBeGreaterThan(position(`IAB-${numberOf(custom.id)}`));
      }
    });

    it.each(['IAB', 'iab', ''])('when order is %p, then the list is the same as with no order', async (order) => {
      const plain = await request(url).get(PATH);
      const response = await request(url).get(PATH).query({ order });
      expect(response.status).toBe(200);
      expect(response.text).toBe(plain.text);
      expect(response.headers.etag).toBe(plain.headers.etag);
    });

    it('when order is ABC, then by name with the en collator (3-D Graphics first, eSports among the Es), ties in IAB order', async () => {
      const custom = await createCategory(`esports ${uniqueId()}`, 'IAB-680');
      const response = await request(url).get(PATH).query({ order: 'abc' });
      expect(response.status).toBe(200);
      const list = response.body as Category[];
      expect(onlyIab(list)).toEqual([...tsv].sort(abcCompare));
      for (let index = 1; index < list.length; index += 1) {
        expect(abcCompare(list[index - 1] as Category, list[index] as Category)).toBeLessThan(0);
      }
      const names = list.map((category) => category.name);
      expect(names[0]).toBe('3-D Graphics');
      expect(names.indexOf('Equine Sports')).toBeLessThan(names.indexOf('eSports'));
      expect(names.indexOf('eSports')).toBeLessThan(names.indexOf(custom.name));
      expect(names.indexOf(custom.name)).toBeLessThan(names.indexOf('Europe Travel'));
    });

    it('when order is not IAB or ABC, then 422 with the order message, in JSON and in XML', async () => {
      const json = await request(url).get(PATH).query({ order: 'name' });
      expect(json.status).toBe(422);
      expect(json.body).toEqual({ code: 422, messages: { order: ['The selected order is invalid.'] } });
      const xml = await request(url).get(PATH).query({ order: 'name', outputFormat: 'xml' });
      expect(xml.status).toBe(422);
      expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(xml.text).toBe(
        `${XML_DECLARATION}<xml><code>422</code><messages><order><item>The selected order is invalid.</item></order></messages></xml>`,
      );
    });

    it('when order is repeated, then it is an invalid value, not a 5xx', async () => {
      const response = await request(url).get(`${PATH}?order=IAB&order=ABC`);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ code: 422, messages: { order: ['The selected order is invalid.'] } });
    });

    it('when order and outputFormat are both bad, then both are reported, in JSON', async () => {
      const response = await request(url).get(PATH).query({ order: 'x', outputFormat: 'yaml' });
      expect(response.status).toBe(422);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual({
        code: 422,
        messages: { order: ['The selected order is invalid.'], outputFormat: ['The selected output format is invalid.'] },
      });
    });
  });

  describe('XML', () => {
    it('when outputFormat is XML, then <xml><item>… with <parent/> for null, escaped, the IAB rows exactly as in the TSV', async () => {
      const response = await request(url).get(PATH).query({ outputFormat: 'XML' });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(response.text.startsWith(`${XML_DECLARATION}<xml><item><id>IAB-1</id><name>Automotive</name><parent/></item>`)).toBe(true);
      const withoutCustom = response.text.replace(/<item><id>CUS-[0-9]+<\/id>.*?<\/item>/g, '');
      expect(withoutCustom).toBe(`${XML_DECLARATION}<xml>${tsv.map(itemXml).join('')}</xml>`);
      const withAmpersand = tsv.find((category) => category.name.includes('&'));
      expect(withAmpersand).toBeDefined();
      expect(response.text).toContain(`<name>${(withAmpersand?.name ?? '').replace(/&/g, '&amp;')}</name>`);
    });

    it('when outputFormat is xml and order is ABC, then the XML follows the ABC order of the JSON', async () => {
      const [json, xml] = await Promise.all([
        request(url).get(PATH).query({ order: 'ABC' }),
        request(url).get(PATH).query({ order: 'ABC', outputFormat: 'xml' }),
      ]);
      expect(xml.text).toBe(`${XML_DECLARATION}<xml>${(json.body as Category[]).map(itemXml).join('')}</xml>`);
    });
  });

  describe('caching', () => {
    it('when listed, then a strong ETag and Cache-Control: public, max-age=300', async () => {
      const response = await request(url).get(PATH);
      expect(response.headers['cache-control']).toBe('public, max-age=300');
      expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    });

    it('when If-None-Match carries the ETag (alone, weak, in a list, or *), then 304 with no body and the same ETag', async () => {
      const { etag } = (await request(url).get(PATH).query({ order: 'ABC', outputFormat: 'XML' })).headers as { etag: string };
      for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const response = await request(url).get(PATH).query({ order: 'ABC', outputFormat: 'XML' }).set('If-None-Match', header);
        expect(response.status).toBe(304);
        expect(response.text).toBe('');
        expect(response.headers.etag).toBe(etag);
        expect(response.headers['cache-control']).toBe('public, max-age=300');
      }
    });

    it('when If-None-Match carries another representation’s ETag, then 200', async () => {
      const { etag } = (await request(url).get(PATH).query({ order: 'ABC' })).headers as { etag: string };
      const response = await request(url).get(PATH).set('If-None-Match', etag);
      expect(response.status).toBe(200);
      expect(response.headers.etag).not.toBe(etag);
    });

    it('gives the four representations four ETags, and a change of the categories changes all of them', async () => {
      const variants = [{}, { order: 'ABC' }, { outputFormat: 'XML' }, { order: 'ABC', outputFormat: 'XML' }];
      const etagsOf = async (): Promise<string[]> =>
        Promise.all(variants.map(async (query) => ((await request(url).get(PATH).query(query)).headers as { etag: string }).etag));
      const before = await etagsOf();
      expect(new Set(before).size).toBe(4);
      await createCategory(`Etag ${uniqueId()}`, null);
      const after = await etagsOf();
      after.forEach((etag, index) => expect(etag).not.toBe(before[index]));
      const stale = await request(url)
        .get(PATH)
        .set('If-None-Match', before[0] as string);
      expect(stale.status).toBe(200);
    });
  });

  describe('compression (CONTRACT §4.5)', () => {
    /** The raw answer: status, headers and the bytes as sent (no client-side decoding). */
    function raw(query: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
      return new Promise((resolve, reject) => {
        // A connection per request: a kept-alive one may be closed by the server just as it is reused.
        httpGet(`${url}${PATH}${query}`, { headers, agent: false }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
          response.on('error', reject);
        }).on('error', reject);
      });
    }

    it.each([
      ['br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['br;q=0.4, gzip;q=0.8', 'gzip', gunzipSync],
    ])('when Accept-Encoding is %s, then the body comes in %s and decodes to the identity body', async (accept, coding, decode) => {
      for (const query of ['', '?order=ABC&outputFormat=XML']) {
        const identity = await raw(query, {});
        const coded = await raw(query, { 'Accept-Encoding': accept });
        expect(coded.status).toBe(200);
        expect(coded.headers['content-encoding']).toBe(coding);
        expect(coded.headers.vary).toBe('Accept-Encoding');
        expect(coded.headers['content-type']).toBe(identity.headers['content-type']);
        expect(Number(coded.headers['content-length'])).toBe(coded.body.length);
        expect(coded.body.length).toBeLessThan(identity.body.length / 5);
        expect(decode(coded.body)).toEqual(identity.body);
        expect(coded.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
        expect(coded.headers.etag).not.toBe(identity.headers.etag);
      }
    });

    it('when no coding is accepted, then the identity body with no Content-Encoding, and Vary: Accept-Encoding all the same', async () => {
      const identity = await raw('', {});
      expect(identity.headers['content-encoding']).toBeUndefined();
      expect(identity.headers.vary).toBe('Accept-Encoding');
      expect(JSON.parse(identity.body.toString('utf8'))).toHaveLength(identity.body.toString('utf8').match(/"id"/g)?.length ?? -1);
    });

    it('gives each coding its own strong ETag with its own 304: the br ETag does not match a gzip request', async () => {
      const etags = await Promise.all(
        ['br', 'gzip', 'identity'].map(async (coding) => (await raw('', { 'Accept-Encoding': coding })).headers.etag),
      );
      expect(new Set(etags).size).toBe(3);
      const [br, gzip] = etags as [string, string, string];
      const notModified = await raw('', { 'Accept-Encoding': 'br', 'If-None-Match': br });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect(notModified.headers.etag).toBe(br);
      expect(notModified.headers.vary).toBe('Accept-Encoding');
      const otherCoding = await raw('', { 'Accept-Encoding': 'gzip', 'If-None-Match': br });
      expect(otherCoding.status).toBe(200);
      expect(otherCoding.headers.etag).toBe(gzip);
    });

    it('when the request is refused (422), then it carries Vary: Accept-Encoding too', async () => {
      const refused = await raw('?order=nope', { 'Accept-Encoding': 'br' });
      expect(refused.status).toBe(422);
      expect(refused.headers.vary).toBe('Accept-Encoding');
    });

    it('when the categories change, then every coding of every representation gets a new ETag', async () => {
      const etagsOf = (): Promise<string[]> =>
        Promise.all(['br', 'gzip'].map(async (coding) => (await raw('?order=ABC', { 'Accept-Encoding': coding })).headers.etag as string));
      const before = await etagsOf();
      await createCategory(`Coded ${uniqueId()}`, null);
      const after = await etagsOf();
      after.forEach((etag, index) => expect(etag).not.toBe(before[index]));
    });
  });

  describe('credentials', () => {
    it('when no credential is sent, then 200', async () => {
      expect((await request(url).get(PATH)).status).toBe(200);
      expect((await request(url).get(PATH).query({ apiKey: '' })).status).toBe(200);
    });

    it('when a valid API key is sent as apiKey, then 200', async () => {
      const response = await request(url).get(PATH).query({ apiKey: credentials.account.apiKey });
      expect(response.status).toBe(200);
      expect(onlyIab(response.body as Category[])).toHaveLength(698);
    });

    it('when a valid token is sent as Bearer or as apiKey, then 200', async () => {
      const token = await credentials.mintToken();
      expect((await request(url).get(PATH).set('Authorization', `Bearer ${token}`)).status).toBe(200);
      expect((await request(url).get(PATH).query({ apiKey: token })).status).toBe(200);
    });

    it('when an unknown API key is sent, then 401 with the contract body', async () => {
      const response = await request(url).get(PATH).query({ apiKey: generateApiKey() });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(ACCESS_RESTRICTED);
      expect(response.headers['www-authenticate']).toBeUndefined();
      expect(response.headers.etag).toBeUndefined();
    });

    it('when an unknown, garbled or empty Bearer is sent, then 401 with WWW-Authenticate for the categorization realm', async () => {
      for (const authorization of [`Bearer ${generateAccessToken(hashSecret(generateApiKey()))}`, 'Bearer not-a-token', 'Bearer ']) {
        const response = await request(url).get(PATH).set('Authorization', authorization);
        expect(response.status).toBe(401);
        expect(response.body).toEqual(ACCESS_RESTRICTED);
        if (authorization !== 'Bearer ')
          expect(response.headers['www-authenticate']).toBe(
            'Bearer realm="categorization", error="invalid_token", error_description="invalid_credential"',
          );
      }
    });

    it('when a revoked token is sent, then 401', async () => {
      const token = await credentials.mintToken();
      await credentials.access.revokeToken(token);
      expect((await request(url).get(PATH).set('Authorization', `Bearer ${token}`)).status).toBe(401);
    });

    it('when the tokens of the account were revoked by a key rotation, then 401', async () => {
      const rotated = await credentialsFor(started.config);
      try {
        const token = await rotated.mintToken();
        expect((await request(url).get(PATH).query({ apiKey: token })).status).toBe(200);
        await rotated.access.deleteKeys([rotated.account.keyHash]);
        expect((await request(url).get(PATH).query({ apiKey: token })).status).toBe(401);
      } finally {
        await rotated.close();
      }
    });

    it('when the API key is no longer active (a rotation removed its access record), then 401', async () => {
      const other = await credentialsFor(started.config);
      try {
        await other.pool.query('UPDATE api_keys SET active = false, deactivated_at = now() WHERE account_id = $1', [other.account.id]);
        await other.access.deleteKeys([other.account.keyHash]);
        expect((await request(url).get(PATH).query({ apiKey: other.account.apiKey })).status).toBe(401);
      } finally {
        await other.close();
      }
    });

    it('when the credential is bad and the order is bad too, then 401 comes first, in the asked format', async () => {
      const response = await request(url).get(PATH).query({ apiKey: generateApiKey(), order: 'nope', outputFormat: 'XML' });
      expect(response.status).toBe(401);
      expect(response.text).toBe(`${XML_DECLARATION}<xml><code>401</code><messages>${ACCESS_RESTRICTED.messages}</messages></xml>`);
    });

    it('when the credential is bad, then a matching If-None-Match still gets 401', async () => {
      const { etag } = (await request(url).get(PATH)).headers as { etag: string };
      const response = await request(url).get(PATH).query({ apiKey: generateApiKey() }).set('If-None-Match', etag);
      expect(response.status).toBe(401);
    });
  });
});
