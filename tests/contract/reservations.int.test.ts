/**
 * CONTRACT §7.1: reservations of the usage API (hold, settle, release, expiry). Black-box, over
 * HTTP: expectations written from the contract (oracles in `support/`).
 */
import { eventually, uniqueId } from '@platform/testing';
import {
  ACCESS_RESTRICTED,
  GRANT,
  JSON_TYPE,
  NOT_FOUND,
  bearer,
  codeMessages,
  expectBody,
  seedBearer,
  serviceJwt,
  usePlatform,
} from './support';

const { platform, send, balanceOf, admin } = usePlatform();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const post = (path: string, json?: unknown, jwt: string | null = serviceJwt()) =>
  send('user', `/internal/v1/usage/reservations${path}`, {
    method: 'POST',
    ...(jwt ? { headers: bearer(jwt) } : {}),
    ...(json === undefined ? {} : { json }),
  });
const pool1 = async (apiKey: string): Promise<number> =>
  ((await balanceOf(apiKey, { productId: '1' })).json() as { data: Array<{ credits: number }> }).data[0]?.credits ?? -1;

async function reserved(credits: number, units: number, ttlSeconds?: number) {
  const account = await platform.account({ 1: credits });
  const body = { credential: account.apiKey, productId: 1, units, requestId: uniqueId('hold-'), ...(ttlSeconds ? { ttlSeconds } : {}) };
  const reply = await post('', body);
  expect(reply.status).toBe(201);
  const { reservationId } = reply.json() as { reservationId: string };
  return { account, body, reply, id: reservationId };
}

describe('§7.1 POST /internal/v1/usage/reservations', () => {
  it('when a product reserves, then 201 with the reservation, and the units are spent at once', async () => {
    const before = Date.now();
    const { account, reply, id } = await reserved(10, 4);
    const body = reply.json() as { expiresAt: string };
    expectBody(reply, 201, { reservationId: id, accountId: account.id, productId: 1, units: 4, expiresAt: body.expiresAt, credits: 6 });
    expect(id).toMatch(UUID);
    expect(Date.parse(body.expiresAt) - before).toBeGreaterThanOrEqual(299_000);
    expect(Date.parse(body.expiresAt) - Date.now()).toBeLessThanOrEqual(300_000);
    expect(await pool1(account.apiKey)).toBe(6);
  });

  it('when a reservation is replayed with the same body, then the first 201 again; with another body, then 409; nothing more is held', async () => {
    const { account, body, reply } = await reserved(10, 4);
    const replay = await post('', body);
    expect({ status: replay.status, text: replay.text }).toEqual({ status: 201, text: reply.text });
    expectBody(await post('', { ...body, units: 5 }), 409, codeMessages(409, 'The request id was already used for a different request.'));
    expect(await pool1(account.apiKey)).toBe(6);
  });

  it('when the pool holds fewer than the units, then 403 and nothing is held', async () => {
    const account = await platform.account({ 1: 3 });
    expectBody(
      await post('', { credential: account.apiKey, productId: 1, units: 4, requestId: uniqueId('hold-') }),
      403,
      codeMessages(403, ACCESS_RESTRICTED),
    );
    expect(await pool1(account.apiKey)).toBe(3);
  });

  it('when ttlSeconds is 0 or 3601, then 422 with the ttl seconds message', async () => {
    const account = await platform.account({ 1: 3 });
    for (const ttlSeconds of [0, 3601]) {
      expectBody(await post('', { credential: account.apiKey, productId: 1, requestId: uniqueId('hold-'), ttlSeconds }), 422, {
        code: 422,
        messages: { ttlSeconds: ['The selected ttl seconds is invalid.'] },
      });
    }
  });

  it('when a reservation takes the last credits, then no token is minted until its release has answered', async () => {
    const { account, id } = await reserved(5, 5);
    const mint = () => send('auth', '/oauth/token', { headers: seedBearer(account.apiKey), json: GRANT });
    expect((await mint()).status).toBe(401);
    expect((await post(`/${id}/release`)).status).toBe(200);
    expect((await mint()).status).toBe(200);
  });
});

describe('§7.1 settle and release', () => {
  it('when settled with n, then n is charged and the rest returns; a repeat answers the same; release after it is 409', async () => {
    const { account, id } = await reserved(10, 4);
    const settled = await post(`/${id}/settle`, { units: 3 });
    expectBody(settled, 200, { reservationId: id, charged: 3, released: 1, credits: 7 });
    const again = await post(`/${id}/settle`, { units: 3 });
    expect({ status: again.status, text: again.text }).toEqual({ status: 200, text: settled.text });
    expectBody(await post(`/${id}/settle`, { units: 2 }), 409, codeMessages(409, 'The reservation was already ended otherwise.'));
    expectBody(await post(`/${id}/release`), 409, codeMessages(409, 'The reservation was already ended otherwise.'));
    expect(await pool1(account.apiKey)).toBe(7);
  });

  it('when released, then every unit returns; a repeat answers the same; settle after it is 409', async () => {
    const { account, id } = await reserved(10, 4);
    const released = await post(`/${id}/release`);
    expectBody(released, 200, { reservationId: id, charged: 0, released: 4, credits: 10 });
    const again = await post(`/${id}/release`);
    expect({ status: again.status, text: again.text }).toEqual({ status: 200, text: released.text });
    expectBody(await post(`/${id}/settle`, { units: 1 }), 409, codeMessages(409, 'The reservation was already ended otherwise.'));
    expect(await pool1(account.apiKey)).toBe(10);
  });

  it('when settled with 0 or with every unit, then the charge is exact', async () => {
    const zero = await reserved(10, 4);
    expectBody(await post(`/${zero.id}/settle`, { units: 0 }), 200, { reservationId: zero.id, charged: 0, released: 4, credits: 10 });
    const whole = await reserved(10, 4);
    expectBody(await post(`/${whole.id}/settle`, { units: 4 }), 200, { reservationId: whole.id, charged: 4, released: 0, credits: 6 });
  });

  it('when n is more than reserved, missing, or negative, then 422 and the reservation stays held', async () => {
    const { account, id } = await reserved(10, 4);
    expectBody(await post(`/${id}/settle`, { units: 5 }), 422, { code: 422, messages: { units: ['The selected units is invalid.'] } });
    expectBody(await post(`/${id}/settle`, { units: -1 }), 422, { code: 422, messages: { units: ['The selected units is invalid.'] } });
    expectBody(await post(`/${id}/settle`, {}), 422, { code: 422, messages: { units: ['The units field is required.'] } });
    expect(await pool1(account.apiKey)).toBe(6);
  });

  it.each(['/00000000-0000-4000-8000-000000000000/settle', '/00000000-0000-4000-8000-000000000000/release', '/not-a-uuid/release'])(
    'when %s names no reservation, then 404',
    async (path) => {
      expectBody(await post(path, path.endsWith('settle') ? { units: 1 } : undefined), 404, NOT_FOUND);
    },
  );

  it.each(['', '/00000000-0000-4000-8000-000000000000/settle', '/00000000-0000-4000-8000-000000000000/release'])(
    'when %s is called without a service JWT, then 401 (JSON, no WWW-Authenticate)',
    async (path) => {
      const reply = await post(path, { units: 1 }, null);
      expect({ status: reply.status, type: reply.type, challenge: reply.header('www-authenticate') }).toEqual({
        status: 401,
        type: JSON_TYPE,
        challenge: null,
      });
    },
  );

  it('when a reservation passes its expiresAt, then the service releases it; release answers that return and settle is 409', async () => {
    const { account, id } = await reserved(10, 4, 1);
    expect(await pool1(account.apiKey)).toBe(6);
    await eventually(async () => ((await pool1(account.apiKey)) === 10 ? true : undefined), 10_000, 'the expired reservation returned');
    expectBody(await post(`/${id}/release`), 200, { reservationId: id, charged: 0, released: 4, credits: 10 });
    expectBody(await post(`/${id}/settle`, { units: 1 }), 409, codeMessages(409, 'The reservation was already ended otherwise.'));
  });

  it('when a reservation is held and settled, then the ledger records the hold, the return and the charge', async () => {
    const created = (
      await admin('POST', '/admin/v1/accounts', { email: `${uniqueId('hold')}@example.com`, credits: { 1: 10 } })
    ).json() as {
      id: number;
      apiKey: string;
    };
    const hold = await post('', { credential: created.apiKey, productId: 1, units: 4, requestId: uniqueId('hold-') });
    await post(`/${(hold.json() as { reservationId: string }).reservationId}/settle`, { units: 3 });
    const reply = await admin('GET', `/admin/v1/accounts/${created.id}/ledger`);
    const rows = (reply.json() as { data: Array<{ cause: string; delta: number; credits: number }> }).data;
    expect(rows.map(({ cause, delta, credits }) => ({ cause, delta, credits }))).toEqual([
      { cause: 'usage', delta: -3, credits: 7 },
      { cause: 'release', delta: 4, credits: 10 },
      { cause: 'hold', delta: -4, credits: 6 },
      { cause: 'top-up', delta: 10, credits: 10 },
    ]);
  });
});
