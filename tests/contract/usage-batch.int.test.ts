/**
 * CONTRACT §7.1: `POST /internal/v1/usage/batch`, each item exactly one `POST /internal/v1/usage`.
 * Black-box, over HTTP: expectations written from the contract (oracles in `support/`).
 */
import { uniqueId } from '@platform/testing';
import {
  ACCESS_RESTRICTED,
  JSON_TYPE,
  GRANT,
  MALFORMED,
  TOO_LARGE,
  bearer,
  codeMessages,
  expectBody,
  seedBearer,
  serviceJwt,
  unknownKey,
  usePlatform,
} from './support';

const { platform, send, balanceOf, usage } = usePlatform();

const REUSED = 'The request id was already used for a different request.';
const requestId = (): string => uniqueId('batch-');
const batch = (items: unknown, jwt = serviceJwt()) => send('user', '/internal/v1/usage/batch', { headers: bearer(jwt), json: { items } });
const pool1 = async (apiKey: string): Promise<number> =>
  ((await balanceOf(apiKey, { productId: '1' })).json() as { data: Array<{ credits: number }> }).data[0]?.credits ?? -1;

describe('§7.1 POST /internal/v1/usage/batch', () => {
  it('when items mix every outcome, then one result per item, in order, each as the single route would answer', async () => {
    const account = await platform.account({ 1: 10 });
    const used = requestId();
    expect((await usage({ credential: account.apiKey, productId: 1, units: 1, requestId: used })).status).toBe(200);
    const reply = await batch([
      { credential: account.apiKey, productId: 1, units: 2, requestId: requestId() },
      { credential: unknownKey(), productId: 1, units: 1, requestId: requestId() },
      { credential: account.apiKey, productId: 1, units: 0, requestId: requestId() },
      { credential: account.apiKey, productId: 24, units: 100, requestId: requestId() },
      { credential: account.apiKey, productId: 1, units: 5, requestId: used },
      { credential: account.apiKey, productId: 2, requestId: requestId() },
      { credential: account.apiKey, productId: '24', units: '3', requestId: requestId() },
      7,
    ]);
    expectBody(reply, 200, {
      items: [
        { status: 200, accountId: account.id, productId: 1, credits: 7 },
        { status: 401, messages: ACCESS_RESTRICTED, reason: 'invalid_credential' },
        { status: 422, messages: { units: ['The selected units is invalid.'] } },
        { status: 403, messages: ACCESS_RESTRICTED, reason: 'pool_exhausted' },
        { status: 409, messages: REUSED },
        { status: 422, messages: { productId: ['The selected product id is invalid.'] } },
        { status: 200, accountId: account.id, productId: 24, credits: 4 },
        { status: 401, messages: ACCESS_RESTRICTED, reason: 'missing_credential' },
      ],
    });
    expect(await pool1(account.apiKey)).toBe(4);
  });

  it('when items share a credential and a product, then each still gets its own answer, with every problem of its body together', async () => {
    const account = await platform.account({ 1: 10 });
    const reply = await batch([
      { credential: account.apiKey, productId: 999_999, units: 0, requestId: requestId() },
      { credential: account.apiKey, productId: 1, units: 1, requestId: requestId() },
      { credential: account.apiKey, productId: 999_999, units: 1, requestId: requestId() },
      { credential: account.apiKey, productId: 1, units: 2, requestId: requestId() },
    ]);
    expectBody(reply, 200, {
      items: [
        { status: 422, messages: { units: ['The selected units is invalid.'], productId: ['The selected product id is invalid.'] } },
        { status: 200, accountId: account.id, productId: 1, credits: 9 },
        { status: 422, messages: { productId: ['The selected product id is invalid.'] } },
        { status: 200, accountId: account.id, productId: 1, credits: 7 },
      ],
    });
  });

  it('when items on one pool follow each other, then they apply in order: a later smaller debit is granted after a refused one', async () => {
    const account = await platform.account({ 1: 5 });
    const items = [3, 3, 2, 1].map((units) => ({ credential: account.apiKey, productId: 1, units, requestId: requestId() }));
    expectBody(await batch(items), 200, {
      items: [
        { status: 200, accountId: account.id, productId: 1, credits: 2 },
        { status: 403, messages: ACCESS_RESTRICTED, reason: 'pool_exhausted' },
        { status: 200, accountId: account.id, productId: 1, credits: 0 },
        { status: 403, messages: ACCESS_RESTRICTED, reason: 'pool_exhausted' },
      ],
    });
  });

  it('when a single debit is replayed as a batch item and a batch item as a single debit, then each answers the first answer and debits nothing', async () => {
    const account = await platform.account({ 1: 10 });
    const single = { credential: account.apiKey, productId: 1, units: 2, requestId: requestId() };
    const item = { credential: account.apiKey, productId: 1, units: 3, requestId: requestId() };
    const first = await usage(single);
    expectBody(first, 200, { accountId: account.id, productId: 1, credits: 8 });
    expectBody(await batch([item, single]), 200, {
      items: [
        { status: 200, accountId: account.id, productId: 1, credits: 5 },
        { status: 200, accountId: account.id, productId: 1, credits: 8 },
      ],
    });
    expectBody(await usage(item), 200, { accountId: account.id, productId: 1, credits: 5 });
    expect(await pool1(account.apiKey)).toBe(5);
  });

  it('when a requestId is reused with a different body across the routes, then 409 on the single route and a 409 item in the batch', async () => {
    const account = await platform.account({ 1: 10 });
    const [viaSingle, viaBatch] = [requestId(), requestId()];
    expect((await usage({ credential: account.apiKey, productId: 1, units: 1, requestId: viaSingle })).status).toBe(200);
    expect((await batch([{ credential: account.apiKey, productId: 1, units: 1, requestId: viaBatch }])).status).toBe(200);
    expectBody(await batch([{ credential: account.apiKey, productId: 1, units: 2, requestId: viaSingle }]), 200, {
      items: [{ status: 409, messages: REUSED }],
    });
    expectBody(await usage({ credential: account.apiKey, productId: 1, units: 2, requestId: viaBatch }), 409, codeMessages(409, REUSED));
    expect(await pool1(account.apiKey)).toBe(8);
  });

  it('when one requestId appears twice in a batch, then both items get the one answer and one debit is made', async () => {
    const account = await platform.account({ 1: 10 });
    const item = { credential: account.apiKey, productId: 1, units: 4, requestId: requestId() };
    expectBody(await batch([item, item]), 200, {
      items: [
        { status: 200, accountId: account.id, productId: 1, credits: 6 },
        { status: 200, accountId: account.id, productId: 1, credits: 6 },
      ],
    });
    expect(await pool1(account.apiKey)).toBe(6);
  });

  it('when 1,000 items fill a body of more than 16 KiB, then every one is debited', async () => {
    const account = await platform.account({ 1: 1_000 });
    const items = Array.from({ length: 1_000 }, () => ({ credential: account.apiKey, productId: 1, units: 1, requestId: requestId() }));
    const reply = await batch(items);
    expect(reply.status).toBe(200);
    const results = (reply.json() as { items: Array<{ status: number; credits: number }> }).items;
    expect(results.map((result) => result.credits)).toEqual(Array.from({ length: 1_000 }, (_, index) => 999 - index));
    expect(await pool1(account.apiKey)).toBe(0);
  });

  it.each<[string, unknown, unknown]>([
    ['no items member', {}, { items: ['The items field is required.'] }],
    ['no item', { items: [] }, { items: ['The selected items is invalid.'] }],
    ['1,001 items', { items: Array.from({ length: 1_001 }, () => ({})) }, { items: ['The selected items is invalid.'] }],
    ['items that is not an array', { items: { credential: 'x' } }, { items: ['The selected items is invalid.'] }],
  ])('when the body has %s, then 422 for the whole request', async (_case, body, messages) => {
    const reply = await send('user', '/internal/v1/usage/batch', { headers: bearer(serviceJwt()), json: body });
    expectBody(reply, 422, { code: 422, messages });
  });

  it('when the body is over 1 MiB, then 413; when it is malformed, then 400', async () => {
    const big = JSON.stringify({ items: [{ padding: 'x'.repeat(1024 * 1024) }] });
    const headers = bearer(serviceJwt());
    expectBody(await send('user', '/internal/v1/usage/batch', { headers, raw: { text: big, type: 'application/json' } }), 413, TOO_LARGE);
    expectBody(
      await send('user', '/internal/v1/usage/batch', { headers, raw: { text: '{"items": [', type: 'application/json' } }),
      400,
      MALFORMED,
    );
  });

  it.each<[string, string | undefined]>([
    ['no JWT', undefined],
    ['a JWT for audience auth', serviceJwt({ aud: 'auth' })],
  ])('when the caller sends %s, then 401 for the whole request and nothing is debited', async (_case, jwt) => {
    const account = await platform.account({ 1: 10 });
    const reply = await send('user', '/internal/v1/usage/batch', {
      ...(jwt === undefined ? {} : { headers: bearer(jwt) }),
      json: { items: [{ credential: account.apiKey, productId: 1, requestId: requestId() }] },
    });
    expect({ status: reply.status, type: reply.type, challenge: reply.header('www-authenticate') }).toEqual({
      status: 401,
      type: JSON_TYPE,
      challenge: null,
    });
    expect(await pool1(account.apiKey)).toBe(10);
  });

  it('when a batch item takes the pool’s last credits, then no token is minted once the batch has answered (the single route’s closing write)', async () => {
    const account = await platform.account({ 1: 2 });
    expectBody(await batch([{ credential: account.apiKey, productId: 1, units: 2, requestId: requestId() }]), 200, {
      items: [{ status: 200, accountId: account.id, productId: 1, credits: 0 }],
    });
    const mint = await send('auth', '/oauth/token', { headers: seedBearer(account.apiKey), json: GRANT });
    expect(mint.status).toBe(401);
  });
});
