import type { Request } from 'express';
import jwt from 'jsonwebtoken';
import { AppError } from '@platform/wire';
import { signServiceJwt } from '@platform/credentials';
import { createServiceJwtCheck, INVALID_SERVICE_TOKEN } from './service-jwt-check';

const SECRET = 'service-jwt-check-test-secret-0123456789';
const withBearer = (token: string): Request =>
  ({ get: (name: string) => (name === 'authorization' ? `Bearer ${token}` : undefined) }) as Request;

function refusal(check: () => unknown): AppError | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return error as AppError;
  }
}

describe('service JWT check', () => {
  it('when a JWT verified once, then it is accepted again until 5 s past its exp, then refused', () => {
    let now = Date.now();
    const check = createServiceJwtCheck(SECRET, () => now);
    const token = signServiceJwt({ issuer: 'product-1', audience: 'user', secret: SECRET, ttlSeconds: 60 });
    const exp = (jwt.decode(token) as { exp: number }).exp;
    expect(check(withBearer(token)).iss).toBe('product-1');
    now = (exp + 4) * 1000;
    expect(check(withBearer(token)).iss).toBe('product-1');
    now = (exp + 5) * 1000;
    const error = refusal(() => check(withBearer(token)));
    expect(error).toBeInstanceOf(AppError);
    expect(error?.code).toBe('unauthenticated');
    expect(error?.message).toBe(INVALID_SERVICE_TOKEN);
  });

  it('when a JWT is signed with another secret, then it is refused every time', () => {
    const check = createServiceJwtCheck(SECRET);
    const token = signServiceJwt({ issuer: 'product-1', audience: 'user', secret: `${SECRET}-other`, ttlSeconds: 60 });
    expect(refusal(() => check(withBearer(token)))?.code).toBe('unauthenticated');
    expect(refusal(() => check(withBearer(token)))?.code).toBe('unauthenticated');
  });

  it('when no Authorization is sent, then refused', () => {
    const check = createServiceJwtCheck(SECRET);
    expect(refusal(() => check({ get: () => undefined } as unknown as Request))?.message).toBe(INVALID_SERVICE_TOKEN);
  });

  it('when a rotation rolls out, then JWTs of the new and of the previous secret are both accepted, any other refused', () => {
    const previous = `${SECRET}-previous`;
    const check = createServiceJwtCheck(SECRET, Date.now, previous);
    const sign = (secret: string) => signServiceJwt({ issuer: 'product-1', audience: 'user', secret, ttlSeconds: 60 });
    expect(check(withBearer(sign(SECRET))).iss).toBe('product-1');
    expect(check(withBearer(sign(previous))).iss).toBe('product-1');
    expect(refusal(() => check(withBearer(sign(`${SECRET}-other`))))?.message).toBe(INVALID_SERVICE_TOKEN);
  });

  it('when the rotation is over (no previous secret), then a JWT of the old secret is refused', () => {
    const check = createServiceJwtCheck(SECRET);
    const old = signServiceJwt({ issuer: 'product-1', audience: 'user', secret: `${SECRET}-previous`, ttlSeconds: 60 });
    expect(refusal(() => check(withBearer(old)))?.code).toBe('unauthenticated');
  });
});
