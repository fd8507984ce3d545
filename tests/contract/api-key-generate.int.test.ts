/**
 * CONTRACT §4.4: `GET /user-service/api-key/generate`.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import {
  FORMATS,
  GRANT,
  JSON_TYPE,
  KEY_GENERATION_422,
  KEY_NOT_ACTIVE,
  XML_TYPE,
  expectBody,
  seedBearer,
  unauthorized,
  unknownKey,
  withFormat,
  usePlatform,
} from './support';

const { platform, send, freshKey, balanceOf, rotate } = usePlatform();

describe('§4.4 key generation', () => {
  it.each(FORMATS)(
    'when currentApiKey is the active key, then 200 {"apiKey":"at_…"} (29 characters after at_), no-store, in %s',
    async (format) => {
      const reply = await rotate(await freshKey(), withFormat(format));
      expect({ status: reply.status, type: reply.type, cacheControl: reply.header('cache-control') }).toEqual({
        status: 200,
        type: format === 'JSON' ? JSON_TYPE : XML_TYPE,
        cacheControl: 'no-store',
      });
      expect(reply.text).toMatch(
        format === 'JSON'
          ? /^\{"apiKey":"at_[A-Za-z0-9]{29}"\}$/
          : /^<\?xml version="1\.0" encoding="utf-8"\?><xml><apiKey>at_[A-Za-z0-9]{29}<\/apiKey><\/xml>$/,
      );
    },
  );

  it('when the key is replaced, then the new key works for balance and tokens, the old one gets 401 and 400 on a second rotation', async () => {
    const apiKey = await freshKey();
    const newKey = ((await rotate(apiKey)).json() as { apiKey: string }).apiKey;
    expect(newKey).not.toBe(apiKey);
    expect((await balanceOf(newKey)).status).toBe(200);
    expect((await send('auth', '/oauth/token', { headers: seedBearer(newKey), json: GRANT })).status).toBe(200);
    expectBody(await balanceOf(apiKey), 401, unauthorized);
    for (const format of FORMATS) expectBody(await rotate(apiKey, withFormat(format)), 400, KEY_NOT_ACTIVE, format);
  });

  it.each(FORMATS)('when currentApiKey is well shaped but unknown, then 400 with the contract’s sentence, in %s', async (format) => {
    expectBody(await rotate(unknownKey(), withFormat(format)), 400, KEY_NOT_ACTIVE, format);
  });

  const SHAPES: Array<[string, () => Promise<Record<string, string | readonly string[]>>]> = [
    ['missing', () => Promise.resolve({})],
    ['an empty string', () => Promise.resolve({ currentApiKey: '' })],
    ['not shaped like a key', () => Promise.resolve({ currentApiKey: 'hello' })],
    ['too short', () => Promise.resolve({ currentApiKey: 'at_abc' })],
    ['one character too long', async () => ({ currentApiKey: `${await freshKey()}x` })],
    ['with a character outside [A-Za-z0-9]', () => Promise.resolve({ currentApiKey: `at_${'a'.repeat(28)}-` })],
    ['an access token of the account', async () => ({ currentApiKey: await platform.token(await freshKey()) })],
    ['repeated', async () => ({ currentApiKey: [await freshKey(), await freshKey()] })],
  ];

  it.each(SHAPES.flatMap(([label, query]) => FORMATS.map((format) => [label, format, query] as const)))(
    'when currentApiKey is %s, then 422 "Input correct request parameters.", in %s',
    async (_label, format, query) => {
      expectBody(
        await send('user', '/user-service/api-key/generate', { query: { ...(await query()), ...withFormat(format) } }),
        422,
        KEY_GENERATION_422,
        format,
      );
    },
  );

  it.each<[string, Record<string, string | readonly string[]>]>([
    ['HTML', { outputFormat: 'HTML' }],
    ['repeated', { outputFormat: ['XML', 'JSON'] }],
  ])(
    'when outputFormat is %s with the active key, then 422 with the key-generation string and the key is not replaced',
    async (_case, query) => {
      const apiKey = await freshKey();
      expectBody(await rotate(apiKey, query), 422, KEY_GENERATION_422);
      expect((await balanceOf(apiKey)).status).toBe(200);
    },
  );

  it('when outputFormat is bad and the key is unknown, then 422 before 400 (shape before existence)', async () => {
    expectBody(await rotate(unknownKey(), { outputFormat: 'HTML' }), 422, KEY_GENERATION_422);
  });

  it('when two calls with the same currentApiKey race, then exactly one gets 200 and the other 400', async () => {
    const apiKey = await freshKey();
    const replies = await Promise.all([rotate(apiKey), rotate(apiKey)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 400]);
    const loser = replies.find((reply) => reply.status === 400);
    expect(loser?.text).toBe(JSON.stringify(KEY_NOT_ACTIVE));
  });
});
