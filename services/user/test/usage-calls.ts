import { randomUUID } from 'node:crypto';
import type request from 'supertest';
import { signServiceJwt } from '@platform/credentials';
import { SERVICE_JWT_SECRET } from './harness';

export const USAGE_PATH = '/internal/v1/usage';

/** A service JWT as a product gateway sends it. */
export const serviceJwt = (): string =>
  signServiceJwt({ issuer: 'product-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });

/** A usage body debiting 1 credit of product 1 under a fresh requestId, unless overridden. */
export const usageBody = (credential: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  credential,
  productId: 1,
  units: 1,
  requestId: randomUUID(),
  ...overrides,
});

/** POST /internal/v1/usage on a service under test. */
export const postUsage = (http: ReturnType<typeof request>, body: Record<string, unknown>) =>
  http.post(USAGE_PATH).set('Authorization', `Bearer ${serviceJwt()}`).send(body);
