import type { Request } from 'express';
import jwt from 'jsonwebtoken';
import { AppError } from '@platform/wire';
import { memorySeenJtis, newJti, signServiceJwt } from '@platform/credentials';
import { createServiceJwtCheck, INVALID_SERVICE_TOKEN } from './service-jwt-check';

const SECRET = 'service-jwt-check-test-secret-0123456789';
const withBearer = (token: string): Request =>
  ({ get: (name: string) => (name === 'authorization' ? `Bearer ${token}` : undefined) }) as Request;

async function refusal(check: () => Promise<unknown>): Promise<AppError | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    return error as AppError;
  }
}

const checkOf = (now: () => number = Date.now, previous?: string) => createServiceJwtCheck(SECRET, memorySeenJtis(now), now, previous);

describe('service JWT check', () => {
  it('when a JWT without jti verified once, then it is accepted again until 5 s past its exp, then refused', async () => {
    let now = Date.now();
    const check = checkOf(() => now);
    const token = signServiceJwt({ issuer: 'product-1', audience: 'user', secret: SECRET, ttlSeconds: 60 });
    const exp = (jwt.decode(token) as { exp: number }).exp;
    expect((await check(withBearer(token))).iss).toBe('product-1');
    now = (exp + 4) * 1000;
    expect((await check(withBearer(token))).iss).toBe('product-1');
    now = (exp + 5) * 1000;
    const error = await refusal(() => check(withBearer(token)));
    expect(error).toBeInstanceOf(AppError);
    expect(error?.code).toBe('unauthenticated');
    expect(error?.message).toBe(INVALID_SERVICE_TOKEN);
  });

  it('when a JWT with a jti is presented again within its lifetime, then the replay is refused; a fresh jti is accepted', async () => {
    const check = checkOf();
    const sign = (jti: string) => signServiceJwt({ issuer: 'product-1', audience: 'user', secret: SECRET, ttlSeconds: 60, jti });
    const token = sign(newJti());
    expect((await check(withBearer(token))).iss).toBe('product-1');
    const replay = await refusal(() => check(withBearer(token)));
    expect(replay?.code).toBe('unauthenticated');
    expect(replay?.message).toBe(INVALID_SERVICE_TOKEN);
    expect((await check(withBearer(sign(newJti())))).iss).toBe('product-1');
  });

  it('when a JWT is signed with another secret, then it is refused every time', async () => {
    const check = checkOf();
    const token = signServiceJwt({ issuer: 'product-1', audience: 'user', secret: `${SECRET}-other`, ttlSeconds: 60 });
    expect((await refusal(() => check(withBearer(token))))?.code).toBe('unauthenticated');
    expect((await refusal(() => check(withBearer(token))))?.code).toBe('unauthenticated');
  });

  it('when no Authorization is sent, then refused', async () => {
    const check = checkOf();
    expect((await refusal(() => check({ get: () => undefined } as unknown as Request)))?.message).toBe(INVALID_SERVICE_TOKEN);
  });

  it('when a rotation rolls out, then JWTs of the new and of the previous secret are both accepted, any other refused', async () => {
    const previous = `${SECRET}-previous`;
    const check = checkOf(Date.now, previous);
    const sign = (secret: string) => signServiceJwt({ issuer: 'product-1', audience: 'user', secret, ttlSeconds: 60 });
    expect((await check(withBearer(sign(SECRET)))).iss).toBe('product-1');
    expect((await check(withBearer(sign(previous)))).iss).toBe('product-1');
    expect((await refusal(() => check(withBearer(sign(`${SECRET}-other`)))))?.message).toBe(INVALID_SERVICE_TOKEN);
  });

  it('when the rotation is over (no previous secret), then a JWT of the old secret is refused', async () => {
    const check = checkOf();
    const old = signServiceJwt({ issuer: 'product-1', audience: 'user', secret: `${SECRET}-previous`, ttlSeconds: 60 });
    expect((await refusal(() => check(withBearer(old))))?.code).toBe('unauthenticated');
  });
});
