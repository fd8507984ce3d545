import { randomUUID } from 'node:crypto';
import { AccountAccessClient, ApiError, MeteringClient } from '../src/index.js';
import { useTestPlatform } from './platform.js';

describe('MeteringClient (reservations, CONTRACT §7.1) against the running platform', () => {
  const platform = useTestPlatform();

  const metering = (secret = platform.serviceJwtSecret) =>
    new MeteringClient({ userUrl: platform.urls.user, serviceJwt: { secret, issuer: 'bulk-whois' } });
  const poolOf = async (apiKey: string): Promise<number | undefined> =>
    (await new AccountAccessClient({ apiKey, ...platform.clientUrls }).balance({ productId: 1 }))[0]?.credits;

  it('when a product reserves, settles part and releases another, then the pool is charged exactly what was settled', async () => {
    const account = await platform.anAccount({ '1': 100 });
    const client = metering();
    const first = await client.reserve({ credential: account.apiKey, productId: 1, units: 30, requestId: randomUUID() });
    expect(first).toEqual({
      reservationId: expect.any(String),
      accountId: account.id,
      productId: 1,
      units: 30,
      expiresAt: expect.any(String),
      credits: 70,
    });
    expect(await client.settle(first.reservationId, 12)).toEqual({
      reservationId: first.reservationId,
      charged: 12,
      released: 18,
      credits: 88,
    });
    const second = await client.reserve({ credential: account.apiKey, productId: 1, units: 10, requestId: randomUUID(), ttlSeconds: 60 });
    expect(await client.release(second.reservationId)).toEqual({
      reservationId: second.reservationId,
      charged: 0,
      released: 10,
      credits: 88,
    });
    expect(await poolOf(account.apiKey)).toBe(88);
  });

  it('when a released reservation is settled, then an ApiError 409; when the pool holds fewer, then an ApiError 403', async () => {
    const account = await platform.anAccount({ '1': 5 });
    const client = metering();
    const held = await client.reserve({ credential: account.apiKey, productId: 1, units: 5, requestId: randomUUID() });
    await client.release(held.reservationId);
    await expect(client.settle(held.reservationId, 1)).rejects.toMatchObject({ name: 'ApiError', status: 409 });
    await expect(client.reserve({ credential: account.apiKey, productId: 1, units: 6, requestId: randomUUID() })).rejects.toMatchObject({
      status: 403,
    });
  });

  it('when the client signs with another secret, then the usage API refuses its JWT: ApiError 401', async () => {
    const account = await platform.anAccount({ '1': 5 });
    const refused = metering('another-secret-another-secret-0123456789').reserve({
      credential: account.apiKey,
      productId: 1,
      units: 1,
      requestId: randomUUID(),
    });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 401 });
  });
});
