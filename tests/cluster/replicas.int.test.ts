/**
 * The services as 2 replicas each behind HAProxy (round robin, no stickiness), on the local
 * cluster of `pnpm cluster up` (Patroni Postgres, RabbitMQ nodes, Redis): the contract's main
 * paths through the fronts, revocation seen at once by every replica, debits raced across
 * replicas, a replica SIGKILLed under load, and one SIGKILLed while a debit it committed is
 * unanswered (tests/cluster/unanswered-debit.ts).
 */
import { randomUUID } from 'node:crypto';
import { countStatuses } from '@platform/testing';
import { alive, restartReplica, waitFor, writeState } from '@platform/testing/cluster';
import { call } from '../contract/support/http';
import { ledgerByRequest, useCluster, waitForReplica } from './support';
import { unansweredDebitReplayed } from './unanswered-debit';

const cluster = useCluster({ OUTBOX_POLL_MS: '200' });

const WHOIS = { id: 1, name: 'WHOIS API' };

describe('the contract through HAProxy', () => {
  test('a token, the balance, a debit, a key rotation, the categories and both alerts, each once', async () => {
    const { front, createAccount, token, balance, debit, rotate, smtp } = cluster();
    const account = await createAccount({ 1: 12 });

    const minted = await token(front('auth'), account.apiKey);
    expect({ status: minted.status, body: minted.json() }).toEqual({
      status: 200,
      body: { accessToken: expect.any(String), expiresIn: 3600 },
    });
    const accessToken = (minted.json() as { accessToken: string }).accessToken;
    // Round robin: consecutive reads land on both replicas, and both know the token.
    for (let read = 0; read < 4; read += 1) {
      const reply = await balance(front('user'), accessToken);
      expect({ status: reply.status, body: reply.json() }).toEqual({
        status: 200,
        body: { data: [{ product_id: 1, product: WHOIS, credits: 12 }] },
      });
    }

    // Two notifiers consume the queue; each crossing alerts whatever order they handle them in.
    const low = await debit(front('user'), { credential: accessToken, productId: 1, units: 3, requestId: randomUUID() });
    expect({ status: low.status, body: low.json() }).toEqual({ status: 200, body: { accountId: account.id, productId: 1, credits: 9 } });
    await smtp.waitFor(1, 30_000);
    const zero = await debit(front('user'), { credential: account.apiKey, productId: 1, units: 9, requestId: randomUUID() });
    expect({ status: zero.status, body: zero.json() }).toEqual({ status: 200, body: { accountId: account.id, productId: 1, credits: 0 } });
    expect((await token(front('auth'), account.apiKey)).status).toBe(401);

    const rotated = await rotate(front('user'), account.apiKey);
    expect({ status: rotated.status, body: rotated.json() }).toEqual({
      status: 200,
      body: { apiKey: expect.stringMatching(/^at_[A-Za-z0-9]{29}$/) },
    });
    expect((await rotate(front('user'), account.apiKey)).status).toBe(400);

    const categories = await call(front('categorization'), '/api/v2/categories');
    expect(categories.status).toBe(200);
    expect((categories.json() as unknown[]).slice(0, 1)).toEqual([{ id: 'IAB-1', name: 'Automotive', parent: null }]);

    const mails = await smtp.waitFor(2, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${smtp.messages.map((mail) => mail.subject).join(', ')}`);
    });
    const mine = mails.filter((mail) => mail.to !== undefined && JSON.stringify(mail.to).includes(account.email));
    expect(mine.map((mail) => mail.subject).sort()).toEqual([
      expect.stringMatching(/^Low balance alert/),
      expect.stringMatching(/^Zero balance alert/),
    ]);
  }, 60_000);
});

describe('revocation across replicas', () => {
  test('a key rotated through one user replica is refused at once by the other user replica, both auth replicas and both categorization replicas, and so are its tokens', async () => {
    const { replica, createAccount, token, balance, rotate } = cluster();
    const account = await createAccount({ 1: 100 });
    const minted = await token(replica('auth', 1), account.apiKey);
    expect(minted.status).toBe(200);
    const oldToken = (minted.json() as { accessToken: string }).accessToken;
    expect((await balance(replica('user', 1), oldToken)).status).toBe(200);

    const rotated = await rotate(replica('user', 0), account.apiKey);
    expect(rotated.status).toBe(200);
    const newKey = (rotated.json() as { apiKey: string }).apiKey;

    const refused = {
      otherUserReplicaKey: (await balance(replica('user', 1), account.apiKey)).status,
      otherUserReplicaToken: (await balance(replica('user', 1), oldToken)).status,
      sameUserReplicaToken: (await balance(replica('user', 0), oldToken)).status,
      auth1: (await token(replica('auth', 0), account.apiKey)).status,
      auth2: (await token(replica('auth', 1), account.apiKey)).status,
      categorization1Key: (await call(replica('categorization', 0), '/api/v2/categories', { query: { apiKey: account.apiKey } })).status,
      categorization2Key: (await call(replica('categorization', 1), '/api/v2/categories', { query: { apiKey: account.apiKey } })).status,
      categorization1Token: (await call(replica('categorization', 0), '/api/v2/categories', { query: { apiKey: oldToken } })).status,
      categorization2Token: (await call(replica('categorization', 1), '/api/v2/categories', { query: { apiKey: oldToken } })).status,
    };
    expect(refused).toEqual({
      otherUserReplicaKey: 401,
      otherUserReplicaToken: 401,
      sameUserReplicaToken: 401,
      auth1: 401,
      auth2: 401,
      categorization1Key: 401,
      categorization2Key: 401,
      categorization1Token: 401,
      categorization2Token: 401,
    });
    // The new key works everywhere at once.
    expect((await balance(replica('user', 1), newKey)).status).toBe(200);
    expect((await token(replica('auth', 0), newKey)).status).toBe(200);
    expect((await call(replica('categorization', 1), '/api/v2/categories', { query: { apiKey: newKey } })).status).toBe(200);
  }, 60_000);
});

describe('debits raced across replicas', () => {
  // A pool of 150 for 100 debits on each replica: whichever replica's batches commit first, the
  // other must grant at least 50, so the race runs on both processes every time (with a pool of
  // 100, one replica could take it all before the other committed anything, and sometimes did).
  test('200 debits of 1 credit raced across both user replicas on a pool of 150 grant exactly 150, some on each replica', async () => {
    const { replica, createAccount, debit, balance, pool } = cluster();
    const account = await createAccount({ 1: 150 });
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_unused, index) =>
        debit(replica('user', index % 2), { credential: account.apiKey, productId: 1, requestId: randomUUID() }),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(countStatuses(replies, { granted: 200, refused: 403 })).toEqual({ granted: 150, refused: 50 });
    // Both replicas granted some: the race ran on two processes.
    const grantedOn = [0, 1].map((side) => statuses.filter((status, index) => status === 200 && index % 2 === side).length);
    expect(grantedOn.map((count) => count >= 50)).toEqual([true, true]);
    expect((await balance(replica('user', 0), account.apiKey)).json()).toEqual({ data: [{ product_id: 1, product: WHOIS, credits: 0 }] });
    const ledger = await ledgerByRequest(pool, account.id);
    expect({ rows: [...ledger.values()].flat().length, sum: [...ledger.values()].flat().reduce((a, b) => a + b, 0) }).toEqual({
      rows: 150,
      sum: -150,
    });
  }, 60_000);
});

describe('a user replica SIGKILLed under load', () => {
  test('HAProxy routes around it: every read answers 200 or 503, no debit is lost or applied twice, and the accounting is exact', async () => {
    const c = cluster();
    const STARTING = 1_000_000;
    const account = await c.createAccount({ 1: STARTING });
    const debits: Array<{ requestId: string; units: number; statuses: Array<number | string> }> = [];
    const reads: Array<number | string> = [];
    let running = true;
    let afterKill = 0;
    let killed = false;
    const send = async (entry: (typeof debits)[number]): Promise<number | string> => {
      const status = await c
        .debit(c.front('user'), { credential: account.apiKey, productId: 1, units: entry.units, requestId: entry.requestId })
        .then((reply) => reply.status)
        .catch((error: Error) => `no answer: ${error.message}`);
      entry.statuses.push(status);
      return status;
    };
    const debitWorker = async (): Promise<void> => {
      while (running) {
        const entry = { requestId: randomUUID(), units: 1 + (debits.length % 3), statuses: [] };
        debits.push(entry);
        if ((await send(entry)) === 200 && killed) afterKill += 1;
      }
    };
    const readWorker = async (): Promise<void> => {
      while (running)
        reads.push(
          await c.balance(c.front('user'), account.apiKey).then(
            (reply) => reply.status,
            (error: Error) => `no answer: ${error.message}`,
          ),
        );
    };
    const workers = [debitWorker(), debitWorker(), debitWorker(), readWorker(), readWorker(), readWorker()];
    const unavailable = (): number => [...debits.flatMap((entry) => entry.statuses), ...reads].filter((status) => status === 503).length;
    const routedAround = async (): Promise<number> => {
      const backend = await c.haproxyServer('user', 'BACKEND');
      return backend.retries + backend.redispatches;
    };
    const victim = c.pid('user-1');
    let held = 0;
    let unavailableBefore = 0;
    let checksPaused = false;
    try {
      await waitFor(() => debits.filter((entry) => entry.statuses[0] === 200).length >= 50, 30_000, 'debits before the kill');
      // HAProxy's checks of user-1 are paused, so that it keeps its share of requests until
      // HAProxy has had to send some around it (else a check right after the kill could mark it
      // DOWN before any request tried it). Stopped first, it provably holds requests when it dies.
      await c.haproxy('disable health user/user-1');
      checksPaused = true;
      process.kill(victim, 'SIGSTOP');
      await waitFor(async () => (await c.haproxyServer('user', 'user-1')).sessions >= 3, 10_000, 'requests held by the stopped replica');
      held = (await c.haproxyServer('user', 'user-1')).sessions;
      const routedAroundBefore = await routedAround();
      unavailableBefore = unavailable();
      process.kill(victim, 'SIGKILL');
      killed = true;
      await waitFor(() => !alive(victim), 10_000, 'the replica to die');
      // A new request's connection to it is refused, and HAProxy sends the request to user-2.
      const answeredBefore = debits.length + reads.length;
      await waitFor(
        async () => (await routedAround()) > routedAroundBefore,
        10_000,
        'HAProxy to send a request around the dead replica',
      ).catch(async (error: Error) => {
        const rows = await Promise.all(
          ['user-1', 'user-2', 'BACKEND'].map(async (server) => [server, await c.haproxyServer('user', server)]),
        );
        const since = debits.length + reads.length - answeredBefore;
        throw new Error(`${error.message}; ${since} requests sent since the kill; HAProxy: ${JSON.stringify(Object.fromEntries(rows))}`);
      });
      await c.haproxy('enable health user/user-1');
      checksPaused = false;
      await waitFor(async () => (await c.haproxyServer('user', 'user-1')).status.startsWith('DOWN'), 10_000, 'HAProxy to mark it DOWN');
      await waitFor(() => afterKill >= 100, 30_000, 'debits after the kill');
    } finally {
      // Also when a wait above fails: the workers would go on calling a cluster that is gone, and
      // the next test's replica would never be checked UP.
      running = false;
      await Promise.all(workers);
      if (checksPaused) await c.haproxy('enable health user/user-1');
    }

    // The fault hit: the replica is gone and HAProxy saw it down.
    expect(alive(victim)).toBe(false);
    // A request it held when it died is never replayed (it may have been applied) but answered
    // with HAProxy's contract 503.
    expect(unavailable() - unavailableBefore).toBeGreaterThanOrEqual(held);
    expect(reads.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    // A debit whose answer was lost is sent again under its requestId, as a client does.
    const failed = debits.filter((entry) => entry.statuses[0] !== 200);
    expect(failed.flatMap((entry) => entry.statuses).filter((status) => status !== 503)).toEqual([]);
    for (const entry of failed) await waitFor(async () => (await send(entry)) === 200, 10_000, `replay of ${entry.requestId}`);

    const ledger = await ledgerByRequest(c.pool, account.id);
    for (const entry of debits)
      expect({ id: entry.requestId, deltas: ledger.get(entry.requestId) }).toEqual({ id: entry.requestId, deltas: [-entry.units] });
    expect(ledger.size).toBe(debits.length);
    const used = debits.reduce((sum, entry) => sum + entry.units, 0);
    expect((await c.balance(c.front('user'), account.apiKey)).json()).toEqual({
      data: [{ product_id: 1, product: WHOIS, credits: STARTING - used }],
    });

    // Back to two replicas for whatever runs next.
    const restarted = restartReplica(c.state.ports, c.state.env, `${c.state.dir}/logs`, 'user-1');
    c.state.processes = c.state.processes.map((entry) => (entry.name === 'user-1' ? restarted : entry));
    writeState(c.state);
    await waitForReplica(c, 'user', 0);
  }, 120_000);
});

describe('a user replica SIGKILLed while a debit it committed is unanswered', () => {
  test('the same requestId sent again through HAProxy gets the first answer from the other replica, and the pool is debited once', async () => {
    await unansweredDebitReplayed(cluster());
  }, 120_000);
});
