/**
 * CONTRACT §2: every answer that carries an account's own data carries `Cache-Control: no-store`
 * and `X-Content-Type-Options: nosniff`. The routes are read from the service's declarations
 * (`accountData: true`), so a route declared so later is covered here without an edit.
 */
import { ACCOUNT_DATA_HEADERS, mountedPaths } from '@platform/kernel';
import { userRoutes } from '../src/openapi';
import { useHarness } from './harness';

const h = useHarness();

const UNKNOWN_KEY = `at_${'u'.repeat(29)}`;
const expected = Object.fromEntries(Object.entries(ACCOUNT_DATA_HEADERS).map(([name, value]) => [name.toLowerCase(), value]));
const accountDataRoutes = userRoutes.filter((route) => route.accountData === true);
// The customer's routes; the admin API's (behind its token) are walked in tests/contract/admin-business.int.test.ts.
const targets = accountDataRoutes.flatMap((route) =>
  mountedPaths(route)
    .filter((path) => !path.startsWith('/admin/'))
    .flatMap((path) => route.methods.map((method) => [method.toUpperCase(), path] as const)),
);

describe('answers carrying an account’s own data', () => {
  it('when the user service is read, then balance (both paths), usage history, notification settings and key rotation are declared account data', () => {
    expect(targets).toEqual(
      expect.arrayContaining([
        ['GET', '/user-service/account-balance'],
        ['POST', '/user-service/account-balance'],
        ['GET', '/service/account-balance'],
        ['GET', '/user-service/usage-history'],
        ['POST', '/user-service/usage-history'],
        ['GET', '/user-service/notification-settings'],
        ['POST', '/user-service/notification-settings'],
        ['GET', '/user-service/api-key/generate'],
      ]),
    );
  });

  it.each(targets)('when %s %s answers, then 200, 401 and 422 all carry no-store and nosniff', async (method, path) => {
    const account = await h.account({ 1: 10 });
    const token = await h.token(account);
    const call = (query: Record<string, string>, bearer?: string) => {
      const pending = method === 'GET' ? h.http.get(path) : h.http.post(path).send({});
      if (bearer !== undefined) pending.set('Authorization', `Bearer ${bearer}`);
      return pending.query(query);
    };
    const rotation = path.endsWith('/api-key/generate');
    const answers = [
      await call(rotation ? { currentApiKey: account.apiKey } : {}, rotation ? undefined : token),
      await call(rotation ? { currentApiKey: UNKNOWN_KEY } : { apiKey: UNKNOWN_KEY }),
      await call({ outputFormat: 'YAML', ...(rotation ? { currentApiKey: account.apiKey } : {}) }, rotation ? undefined : token),
    ];
    expect(answers.map((answer) => answer.status)).toEqual(rotation ? [200, 400, 422] : [200, 401, 422]);
    for (const answer of answers) expect(answer.headers).toMatchObject(expected);
  });

  it('when a route carries no account data (health), then the headers are not set: they come from the declaration, not a global middleware', async () => {
    const health = await h.http.get('/health/live');
    expect(health.headers['x-content-type-options']).toBeUndefined();
  });
});
