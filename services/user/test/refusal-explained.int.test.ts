/**
 * Refusal reasons that cost a lookup (CONTRACT §2), as the user service answers them: a replaced
 * key says when it was replaced (`X-Key-Replaced-At`, an extension), also when the account was
 * disabled at the time; an account-page session whose account is disabled says
 * `account_disabled`, not `invalid_credential`, while one that ended otherwise stays invalid.
 */
import { hashSecret } from '@platform/credentials';
import { ADMIN_TOKEN, useHarness } from './harness';

const h = useHarness();

const balance = (apiKey: string) => h.http.get('/user-service/account-balance').query({ apiKey });
const admin = (method: 'patch' | 'post', path: string, body?: object) =>
  h.http[method](`/admin/v1${path}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send(body ?? {});

async function createdAt(keyHash: string): Promise<string> {
  const result = await h.pool.query<{ created_at: Date }>('SELECT created_at FROM api_keys WHERE key_hash = $1', [keyHash]);
  return (result.rows[0] as { created_at: Date }).created_at.toISOString();
}

async function signIn(apiKey: string): Promise<string> {
  const res = await h.http.post('/account/session').send({ apiKey });
  expect(res.status).toBe(200);
  return (res.body as { session: string }).session;
}

const readWith = (session: string) => h.http.get('/user-service/notification-settings').set('Authorization', `Bearer ${session}`);

describe('refusals that say more than their reason', () => {
  it('when a replaced key is refused, then X-Key-Replaced-At is when its successor was made', async () => {
    const account = await h.account({ 1: 10 });
    const rotated = await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
    expect(rotated.status).toBe(200);
    const refused = await balance(account.apiKey);
    expect({ status: refused.status, reason: refused.headers['x-refusal-reason'] }).toEqual({ status: 401, reason: 'key_replaced' });
    expect(refused.headers['x-key-replaced-at']).toBe(await createdAt(hashSecret(rotated.body.apiKey as string)));
  });

  it('when a key is replaced while its account is disabled, then its time is the replacement’s, and the newest key says disabled', async () => {
    const account = await h.account({ 1: 10 });
    expect((await admin('patch', `/accounts/${account.id}`, { disabled: true })).status).toBe(200);
    const rotated = await admin('post', `/accounts/${account.id}/api-key`);
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.apiKey as string;
    const [old, newest] = [await balance(account.apiKey), await balance(newKey)];
    expect([old.headers['x-refusal-reason'], old.headers['x-key-replaced-at']]).toEqual([
      'key_replaced',
      await createdAt(hashSecret(newKey)),
    ]);
    expect([newest.status, newest.headers['x-refusal-reason'], newest.headers['x-key-replaced-at']]).toEqual([
      401,
      'account_disabled',
      undefined,
    ]);
  });

  it('when an open page session’s account is disabled, then its next read is refused as account_disabled', async () => {
    const account = await h.account({ 1: 10 });
    const session = await signIn(account.apiKey);
    expect((await readWith(session)).status).toBe(200);
    expect((await admin('patch', `/accounts/${account.id}`, { disabled: true })).status).toBe(200);
    const refused = await readWith(session);
    expect({ status: refused.status, reason: refused.headers['x-refusal-reason'] }).toEqual({ status: 401, reason: 'account_disabled' });
    expect(refused.headers['www-authenticate']).toContain('error_description="account_disabled"');
  });

  it('when a page session ended otherwise (signed out, its key replaced), then it stays invalid_credential', async () => {
    const account = await h.account({ 1: 10 });
    const signedOut = await signIn(account.apiKey);
    expect((await h.http.post('/account/session/revoke').set('Authorization', `Bearer ${signedOut}`)).status).toBe(200);
    const beforeRotation = await signIn(account.apiKey);
    expect((await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey })).status).toBe(200);
    for (const session of [signedOut, beforeRotation]) {
      const refused = await readWith(session);
      expect({ status: refused.status, reason: refused.headers['x-refusal-reason'] }).toEqual({
        status: 401,
        reason: 'invalid_credential',
      });
    }
  });
});
