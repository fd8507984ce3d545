/**
 * Rotating SERVICE_JWT_SECRET without downtime: the user service starts with the new secret and
 * the old one in SERVICE_JWT_SECRET_PREVIOUS, so product apps that still sign with the old one
 * keep debiting while they are moved; once SERVICE_JWT_SECRET_PREVIOUS is removed, the old one is refused.
 */
import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import { SERVICE_JWT_SECRET, startHarness, testConfig, type Harness } from './harness';

const NEW_SECRET = `${SERVICE_JWT_SECRET}-rotated-0123456789`;

async function debit(h: Harness, secret: string, apiKey: string): Promise<number> {
  const jwt = signServiceJwt({ issuer: 'product-test', audience: 'user', secret, ttlSeconds: 60 });
  const res = await h.http
    .post('/internal/v1/usage')
    .set('Authorization', `Bearer ${jwt}`)
    .send({ credential: apiKey, productId: 1, units: 1, requestId: randomUUID() });
  return res.status;
}

describe('SERVICE_JWT_SECRET rotation', () => {
  it('when both secrets are configured, then JWTs of either debit; afterwards only the new one does', async () => {
    const during = await startHarness({
      config: testConfig({ SERVICE_JWT_SECRET: NEW_SECRET, SERVICE_JWT_SECRET_PREVIOUS: SERVICE_JWT_SECRET }),
    });
    try {
      const account = await during.account({ 1: 10 });
      expect([await debit(during, NEW_SECRET, account.apiKey), await debit(during, SERVICE_JWT_SECRET, account.apiKey)]).toEqual([
        200, 200,
      ]);
    } finally {
      await during.stop();
    }
    const after = await startHarness({ config: testConfig({ SERVICE_JWT_SECRET: NEW_SECRET }) });
    try {
      const account = await after.account({ 1: 10 });
      expect([await debit(after, NEW_SECRET, account.apiKey), await debit(after, SERVICE_JWT_SECRET, account.apiKey)]).toEqual([200, 401]);
    } finally {
      await after.stop();
    }
  });
});
