import { randomUUID } from 'node:crypto';
import { AppError } from '@platform/wire';
import { signServiceJwt } from '@platform/credentials';
import { createCoalescingUsageClient, createUsageTransport, type CoalesceOptions, type UsageClient } from '../src';
import { startFakeUsageApi, type FakeUsageApi } from './fake-usage-api';

const SECRET = 'usage-coalescer-test-secret-0123456789abcdef';

describe('coalescing usage client (CONTRACT §7.1)', () => {
  let usage: FakeUsageApi;
  const clients: UsageClient[] = [];
  let nextAccount = 1;

  const aClient = (options: CoalesceOptions, jwtSecret = SECRET): UsageClient => {
    const transport = createUsageTransport({
      userUrl: usage.url,
      signJwt: () => signServiceJwt({ issuer: 'product-1', audience: 'user', secret: jwtSecret, ttlSeconds: 60 }),
      connections: 4,
      timeoutMs: 2000,
      retries: 2,
    });
    const client = createCoalescingUsageClient(transport, options);
    clients.push(client);
    return client;
  };
  const anAccount = (credits: number): string => {
    const credential = `key-${randomUUID()}`;
    nextAccount += 1;
    usage.addCredential(credential, nextAccount);
    usage.setCredits(nextAccount, 1, credits);
    return credential;
  };
  const debit = (client: UsageClient, credential: string) => client.debit({ credential, productId: 1, units: 1, requestId: randomUUID() });
  const settled = <T>(calls: Array<Promise<T>>) => Promise.allSettled(calls);

  beforeAll(async () => {
    usage = await startFakeUsageApi(SECRET);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await usage.close();
  });

  it('when calls arrive within the window, then they go as one batch and each gets its own debit', async () => {
    const client = aClient({ windowMs: 50 });
    const credential = anAccount(10);
    const before = usage.batches.length;
    const grants = await Promise.all(Array.from({ length: 10 }, () => debit(client, credential)));
    expect(usage.batches.slice(before)).toEqual([10]);
    expect(grants.map((grant) => grant.credits).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  // The window bounds a batch's wait; it does not add one: an idle gateway sends at once, a busy
  // one sends what gathered as soon as its batch in flight answers (a window of a minute would
  // otherwise outlast the test).
  it('when a call finds no batch in flight, then it goes at once; calls that arrive meanwhile go together as soon as it answers', async () => {
    const client = aClient({ windowMs: 60_000 });
    const credential = anAccount(10);
    const before = usage.batches.length;
    const held = usage.holdBatches();
    const first = debit(client, credential);
    await held.arrived;
    const rest = Array.from({ length: 3 }, () => debit(client, credential));
    held.release();
    const grants = await Promise.all([first, ...rest]);
    expect(usage.batches.slice(before)).toEqual([1, 3]);
    expect(grants.map((grant) => grant.credits)).toEqual([9, 8, 7, 6]);
  });

  it('when more calls arrive than maxItems, then a batch goes as soon as it is full', async () => {
    const client = aClient({ windowMs: 50, maxItems: 4 });
    const credential = anAccount(10);
    const before = usage.batches.length;
    await Promise.all(Array.from({ length: 10 }, () => debit(client, credential)));
    expect(usage.batches.slice(before)).toEqual([4, 4, 2]);
  });

  it('when one batch mixes accounts, then each call gets its own outcome: a grant, a 401, a 403', async () => {
    const client = aClient({ windowMs: 50 });
    const [rich, empty] = [anAccount(5), anAccount(0)];
    const results = await settled([debit(client, rich), debit(client, 'key-unknown'), debit(client, empty)]);
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value.credits : (result.reason as AppError).code))).toEqual([
      4,
      'unauthenticated',
      'credits_exhausted',
    ]);
  });

  it('when the batch answers 503 once, then it is retried with the same requestIds and every call is debited once', async () => {
    const client = aClient({ windowMs: 20 });
    const credential = anAccount(3);
    const before = usage.calls.length;
    usage.failNext(1, 503);
    const grants = await Promise.all([debit(client, credential), debit(client, credential)]);
    const attempts = usage.calls.slice(before).map((call) => call.body.requestId);
    expect(attempts).toHaveLength(4);
    expect(attempts.slice(2)).toEqual(attempts.slice(0, 2));
    expect(grants.map((grant) => grant.credits).sort()).toEqual([1, 2]);
  });

  it('when the usage API refuses the gateway’s JWT, then every call of the batch fails as a misconfiguration, not as the customer’s 401', async () => {
    const client = aClient({ windowMs: 20 }, 'another-secret-another-secret-0123456789');
    const credential = anAccount(3);
    const results = await settled([debit(client, credential), debit(client, credential)]);
    expect(results.map((result) => result.status === 'rejected' && !(result.reason instanceof AppError))).toEqual([true, true]);
  });
});
