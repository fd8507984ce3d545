/**
 * A usage batch that changes no pool to or from 0 commits without a transaction of its own: it
 * is read without locks and written as one statement that writes only if nothing it was decided
 * on has changed. Real Postgres (a database of its own); what changes "meanwhile" is written by
 * the test on another connection between the batch's read and its write, and two replicas'
 * writes over the same pools are let go at the same moment.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { hashSecret } from '@platform/credentials';
import { withClient } from '@platform/db';
import { createPrivateDatabase, eventually, type PrivateDatabase } from '@platform/testing';
import { createBatchCommit, type UsageCommitPorts } from '../src/domain/commit-usage-batch';
import type { AccountTransaction, TransactionKind } from '../src/domain/account-transaction';
import type { Debit } from '../src/domain/usage-batch';
import { writeCreditChangesIfUnchanged } from '../src/store/credit-writes';
import { startHarness, testConfig, type Harness } from './harness';
import { usageCommitPorts } from './usage-commit';

let db: PrivateDatabase;
let h: Harness;

beforeAll(async () => {
  db = await createPrivateDatabase('usage_alone');
  h = await startHarness({ config: testConfig({ DATABASE_URL: db.url }) });
});

afterAll(async () => {
  await h?.stop();
  await db?.drop();
});

/** What the batch did: its reads without locks, its account transactions, and whether each write alone took. */
interface Spied {
  ports: UsageCommitPorts;
  reads: number;
  transactions: number;
  writesAlone: boolean[];
}

/** The real ports, counted; `meanwhile` runs after the unlocked read and before the batch writes. */
function spiedPorts(meanwhile?: () => Promise<void>): Spied {
  const real = usageCommitPorts(h);
  const spied: Spied = {
    reads: 0,
    transactions: 0,
    writesAlone: [],
    ports: {
      reads: {
        async read(keys, requestIds) {
          spied.reads += 1;
          const read = await real.reads.read(keys, requestIds);
          await meanwhile?.();
          return read;
        },
      },
      accounts: {
        transaction(kind, fn) {
          spied.transactions += 1;
          return real.accounts.transaction(kind, fn);
        },
        async applyAlone(changes) {
          const written = await real.accounts.applyAlone(changes);
          spied.writesAlone.push(written);
          return written;
        },
      },
    },
  };
  return spied;
}

const debit = (accountId: number, units = 1, requestId = randomUUID()): Debit => ({
  requestId,
  digest: `digest-${requestId}`,
  accountId,
  poolId: 1,
  productId: 1,
  units,
});

async function credits(accountId: number): Promise<number> {
  const result = await h.pool.query('SELECT credits FROM pool_balances WHERE account_id = $1 AND pool_id = 1', [accountId]);
  return Number(result.rows[0]?.credits);
}

async function written(accountId: number): Promise<{ ledger: number; answers: number; events: number }> {
  const result = await h.pool.query<{ ledger: number; answers: number; events: number }>(
    `SELECT (SELECT count(*)::int FROM credit_ledger WHERE account_id = $1 AND cause = 'usage') AS ledger,
            (SELECT count(*)::int FROM usage_requests WHERE account_id = $1) AS answers,
            (SELECT count(*)::int FROM outbox_event_list WHERE (payload->>'accountId')::int = $1) AS events`,
    [accountId],
  );
  return result.rows[0] as { ledger: number; answers: number; events: number };
}

describe('usage batches without a transaction of their own', () => {
  it('when no pool reaches 0, then the batch is one statement (no transaction), and writes its pools, ledger rows, answers and event', async () => {
    const [a, b] = await Promise.all([h.account({ 1: 100 }), h.account({ 1: 100 })]);
    const spied = spiedPorts();
    const outcomes = await createBatchCommit(spied.ports)([debit(a.id, 3), debit(b.id, 2), debit(a.id, 4)]);

    expect(outcomes.map((outcome) => (outcome.kind === 'granted' ? outcome.answer.credits : outcome.kind))).toEqual([97, 98, 93]);
    expect(spied).toMatchObject({ transactions: 0, writesAlone: [true] });
    expect([await credits(a.id), await credits(b.id)]).toEqual([93, 98]);
    expect(await written(a.id)).toEqual({ ledger: 2, answers: 2, events: 1 });
    expect(await written(b.id)).toEqual({ ledger: 1, answers: 1, events: 1 });
  });

  it('when a batch takes a pool to 0, then it commits in its account transaction, with the credit bit closed in it', async () => {
    const account = await h.account({ 1: 5 });
    const spied = spiedPorts();
    const outcomes = await createBatchCommit(spied.ports)([debit(account.id, 5)]);

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['granted']);
    expect(spied).toMatchObject({ transactions: 1, writesAlone: [] });
    expect(await h.access.findKey(hashSecret(account.apiKey))).toMatchObject({ accountId: account.id, hasCredits: false });
    expect(await credits(account.id)).toBe(0);
  });

  it('when the pool changes between the read and the write, then the write takes nothing, and the batch decides again under locks from the new credits', async () => {
    const account = await h.account({ 1: 100 });
    const spied = spiedPorts(async () => {
      await h.pool.query('UPDATE pool_balances SET credits = credits + 50 WHERE account_id = $1 AND pool_id = 1', [account.id]);
    });
    const outcomes = await createBatchCommit(spied.ports)([debit(account.id, 10)]);

    expect(outcomes).toEqual([{ kind: 'granted', answer: { accountId: account.id, productId: 1, credits: 140 } }]);
    expect(spied).toMatchObject({ transactions: 1, writesAlone: [false] });
    expect(await credits(account.id)).toBe(140);
    // One debit, written once: the refused statement left nothing behind.
    expect(await written(account.id)).toEqual({ ledger: 1, answers: 1, events: 1 });
  });

  it('when another replica commits one of the requestIds meanwhile, then the write takes nothing, and the batch answers that debit as a replay', async () => {
    const account = await h.account({ 1: 100 });
    const replayed = debit(account.id, 1);
    const spied = spiedPorts(async () => {
      await h.pool.query('UPDATE pool_balances SET credits = 99 WHERE account_id = $1 AND pool_id = 1', [account.id]);
      await h.pool.query(
        'INSERT INTO usage_requests (request_id, account_id, request_digest, product_id, credits) VALUES ($1, $2, $3, 1, 99)',
        [replayed.requestId, account.id, replayed.digest],
      );
    });
    const outcomes = await createBatchCommit(spied.ports)([replayed, debit(account.id, 2)]);

    expect(outcomes).toEqual([
      { kind: 'replayed', answer: { accountId: account.id, productId: 1, credits: 99 } },
      { kind: 'granted', answer: { accountId: account.id, productId: 1, credits: 97 } },
    ]);
    expect(spied).toMatchObject({ transactions: 1, writesAlone: [false] });
    expect(await credits(account.id)).toBe(97);
  });

  it('when another replica commits one of the requestIds after a transaction read the answers, then the transaction takes nothing, and the batch decides again: that debit is a replay', async () => {
    const account = await h.account({ 1: 3 });
    const replayed = debit(account.id, 1);
    const real = usageCommitPorts(h);
    let attempts = 0;
    // Takes the pool to 0: in a transaction, which commits the other replica's answer after its locked read.
    const ports: UsageCommitPorts = {
      reads: real.reads,
      accounts: {
        ...real.accounts,
        transaction: <T>(kind: TransactionKind, fn: (tx: AccountTransaction) => Promise<T>): Promise<T> =>
          real.accounts.transaction(kind, (tx) => {
            attempts += 1;
            const lockPoolsAndAnswers: typeof tx.lockPoolsAndAnswers = async (keys, requestIds) => {
              const read = await tx.lockPoolsAndAnswers(keys, requestIds);
              if (attempts === 1) {
                await h.pool.query(
                  'INSERT INTO usage_requests (request_id, account_id, request_digest, product_id, credits) VALUES ($1, $2, $3, 1, 42)',
                  [replayed.requestId, account.id, replayed.digest],
                );
              }
              return read;
            };
            return fn({ ...tx, lockPoolsAndAnswers });
          }),
      },
    };
    const outcomes = await createBatchCommit(ports)([replayed, debit(account.id, 2)]);

    expect(outcomes).toEqual([
      { kind: 'replayed', answer: { accountId: account.id, productId: 1, credits: 42 } },
      { kind: 'granted', answer: { accountId: account.id, productId: 1, credits: 1 } },
    ]);
    expect(attempts).toBe(2);
    expect(await credits(account.id)).toBe(1);
    expect(await written(account.id)).toEqual({ ledger: 1, answers: 2, events: 1 });
  });

  it('when every debit of a batch is refused, then nothing is written and no transaction is opened', async () => {
    const account = await h.account({ 1: 2 });
    const spied = spiedPorts();
    const outcomes = await createBatchCommit(spied.ports)([debit(account.id, 3)]);

    expect(outcomes).toEqual([{ kind: 'exhausted' }]);
    expect(spied).toMatchObject({ transactions: 0, writesAlone: [] });
    expect(await written(account.id)).toEqual({ ledger: 0, answers: 0, events: 0 });
  });
});

describe('batches decided on the credits kept from the previous batch', () => {
  const setCredits = (accountId: number, value: number) =>
    h.pool.query('UPDATE pool_balances SET credits = $2 WHERE account_id = $1 AND pool_id = 1', [accountId, value]);

  /** A fresh account with `credits` in pool 1, and a batch commit (its options given) on the counted real store. */
  async function committing(credits: number, options?: Parameters<typeof createBatchCommit>[1]) {
    const account = await h.account({ 1: credits });
    const spied = spiedPorts();
    return { account, spied, commit: createBatchCommit(spied.ports, options) };
  }

  /** On 100 kept credits: a debit of `first`, the pool then set to `setTo` behind them (another replica, an operator), then a debit of `then`. */
  async function debitAfterOutsideChange(first: number, setTo: number, then: number) {
    const { account, spied, commit } = await committing(100);
    await commit([debit(account.id, first)]);
    await setCredits(account.id, setTo);
    return { account, spied, outcomes: await commit([debit(account.id, then)]) };
  }

  it('when a batch follows one over the same pools, then it is written without a read, from the credits the first one left', async () => {
    const [a, b] = await Promise.all([h.account({ 1: 100 }), h.account({ 1: 100 })]);
    const spied = spiedPorts();
    const commit = createBatchCommit(spied.ports);
    await commit([debit(a.id, 3), debit(b.id, 2)]);
    const outcomes = await commit([debit(b.id, 5), debit(a.id, 1)]);

    expect(outcomes.map((outcome) => (outcome.kind === 'granted' ? outcome.answer.credits : outcome.kind))).toEqual([93, 96]);
    expect(spied).toMatchObject({ reads: 1, transactions: 0, writesAlone: [true, true] });
    expect([await credits(a.id), await credits(b.id)]).toEqual([96, 93]);
  });

  it('when the pool changed since the kept credits (another replica, an operator), then the write takes nothing, and the batch is decided again on a read', async () => {
    const { account, spied, outcomes } = await debitAfterOutsideChange(10, 500, 1);

    expect(outcomes).toEqual([{ kind: 'granted', answer: { accountId: account.id, productId: 1, credits: 499 } }]);
    expect(spied).toMatchObject({ reads: 2, transactions: 0, writesAlone: [true, false, true] });
    expect(await written(account.id)).toEqual({ ledger: 2, answers: 2, events: 2 });
  });

  it('when a write found the kept credits changed, then that pool is read before its batches for a minute (another replica writes it too), then kept again', async () => {
    let now = 1_000_000;
    const { account, spied, commit } = await committing(100, { now: () => now });
    await commit([debit(account.id, 1)]);
    await setCredits(account.id, 500);
    await commit([debit(account.id, 1)]);
    expect(spied).toMatchObject({ reads: 2, writesAlone: [true, false, true] });

    // Within the minute: a read, and no refused write, before every batch over the pool.
    now += 59_000;
    await commit([debit(account.id, 1)]);
    await commit([debit(account.id, 1)]);
    expect(spied).toMatchObject({ reads: 4, writesAlone: [true, false, true, true, true] });

    // After it: one more read, whose credits are kept for the batches after it.
    now += 2_000;
    await commit([debit(account.id, 1)]);
    await commit([debit(account.id, 1)]);
    expect(spied).toMatchObject({ reads: 5, writesAlone: [true, false, true, true, true, true, true] });
    expect(await credits(account.id)).toBe(495);
  });

  it('when the kept credits are too few but the pool was topped up meanwhile, then the debit is granted: a refusal is decided only on a read', async () => {
    const { account, spied, outcomes } = await debitAfterOutsideChange(98, 1000, 5);

    expect(outcomes).toEqual([{ kind: 'granted', answer: { accountId: account.id, productId: 1, credits: 995 } }]);
    expect(spied).toMatchObject({ reads: 2, writesAlone: [true, true] });
  });

  it('when a requestId was committed before (not by this process), then the write takes nothing, and the read answers it as a replay', async () => {
    const { account, spied, commit } = await committing(100);
    const replayed = debit(account.id, 1);
    await h.pool.query(
      'INSERT INTO usage_requests (request_id, account_id, request_digest, product_id, credits) VALUES ($1, $2, $3, 1, 42)',
      [replayed.requestId, account.id, replayed.digest],
    );
    await commit([debit(account.id, 10)]);
    const outcomes = await commit([replayed, debit(account.id, 2)]);

    expect(outcomes).toEqual([
      { kind: 'replayed', answer: { accountId: account.id, productId: 1, credits: 42 } },
      { kind: 'granted', answer: { accountId: account.id, productId: 1, credits: 88 } },
    ]);
    expect(spied).toMatchObject({ reads: 2, writesAlone: [true, false, true] });
    expect(await credits(account.id)).toBe(88);
  });

  it('when a write finds something changed, then its connection goes back to the pool (pool.query would close it)', async () => {
    const account = await h.account({ 1: 100 });
    const removed: unknown[] = [];
    const onRemove = (client: unknown): void => {
      removed.push(client);
    };
    h.pool.on('remove', onRemove);
    try {
      const spied = spiedPorts();
      const commit = createBatchCommit(spied.ports);
      await commit([debit(account.id, 1)]);
      await setCredits(account.id, 7);
      await commit([debit(account.id, 1)]);
      expect(spied.writesAlone).toEqual([true, false, true]);
    } finally {
      h.pool.off('remove', onRemove);
    }
    expect(removed).toEqual([]);
  });

  it('when no kept credits are allowed (keptPools 0), then every batch reads first', async () => {
    const { account, spied, commit } = await committing(100, { keptPools: 0 });
    await commit([debit(account.id, 1)]);
    await commit([debit(account.id, 1)]);
    expect(spied).toMatchObject({ reads: 2, writesAlone: [true, true] });
  });
});

describe('two replicas writing alone over the same pools at once', () => {
  /**
   * Two replicas' batch commits (their own kept credits, their own connections) on a large
   * pool_balances (pools of an account of no test's, analyzed): there Postgres locks a write's
   * pools in the order it names them (a nested loop over its list, each pool found by its key),
   * not in the table's order (a hash join over a scan, on a small table).
   */
  let connections: pg.Pool;
  /** The statements on `connections` that Postgres ended as a deadlock (whether or not their caller let it through). */
  const deadlocks: unknown[] = [];
  beforeAll(async () => {
    const filler = await h.account({ 1: 1 });
    await h.pool.query(
      'INSERT INTO pool_balances (account_id, pool_id, credits) SELECT $1, id, 0 FROM generate_series(1000, 50999) AS id',
      [filler.id],
    );
    await h.pool.query('ANALYZE pool_balances');
  });
  // New sessions for each test: none keeps a plan of the other's.
  beforeEach(() => {
    deadlocks.length = 0;
    connections = new pg.Pool({ connectionString: db.url, max: 4 });
    connections.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        const result = query(...args);
        if (result instanceof Promise)
          result.catch((error: { code?: string }) => {
            if (error.code === '40P01') deadlocks.push(error);
          });
        return result;
      }) as typeof client.query;
    });
  });
  afterEach(() => connections.end());
  const replica = (): UsageCommitPorts => usageCommitPorts({ pool: connections, access: h.access });

  /** Holds the pools while `writes` start, until two writes wait (for it or each other); then lets go. Resolves with the writes. */
  async function heldWhile<T>(accountIds: number[], writes: () => Promise<T>): Promise<T> {
    const holder = await h.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM pool_balances WHERE account_id = ANY ($1) AND pool_id = 1 FOR UPDATE', [accountIds]);
      const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const written = writes();
      written.catch(() => undefined);
      await eventually(
        async () => {
          // This database is the test file's own: every write waiting in it is one of these.
          const waiting = await h.pool.query(
            'SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1 AND cardinality(pg_blocking_pids(pid)) > 0',
            [pid],
          );
          return waiting.rows.length === 2 ? true : undefined;
        },
        5000,
        'the writes to wait for the pools',
      );
      await holder.query('ROLLBACK');
      return await written;
    } finally {
      holder.release();
    }
  }

  it('when their batches name two pools in opposite orders, then both writes lock them in one order (no deadlock) and both are granted', async () => {
    const [a, b] = await Promise.all([h.account({ 1: 100 }), h.account({ 1: 100 })]);
    // Let go at once, the writes lock the pools together: in opposite orders, Postgres would end one as a deadlock.
    const outcomes = await heldWhile([a.id, b.id], () =>
      Promise.all([
        createBatchCommit(replica())([debit(a.id, 1), debit(b.id, 1)]),
        createBatchCommit(replica())([debit(b.id, 1), debit(a.id, 1)]),
      ]),
    );

    expect(outcomes.map((batch) => batch.map((outcome) => outcome.kind))).toEqual([
      ['granted', 'granted'],
      ['granted', 'granted'],
    ]);
    expect([await credits(a.id), await credits(b.id)]).toEqual([98, 98]);
    // The write that found the other's change was refused as changed, not ended as a deadlock.
    expect(deadlocks).toEqual([]);
  });

  it('when two writes of their own name the pools in opposite orders all the same (written by hand), then the one Postgres ends as a deadlock took nothing and says so: its batch is decided again under locks, not answered 503', async () => {
    const [a, b] = await Promise.all([h.account({ 1: 100 }), h.account({ 1: 100 })]);
    const write = (accountIds: number[]) =>
      withClient(connections, (client) =>
        writeCreditChangesIfUnchanged(client, {
          pools: accountIds.map((accountId) => ({ accountId, poolId: 1, previousCredits: 100, credits: 99 })),
          entries: [],
          events: [],
        }),
      );
    const written = await heldWhile([a.id, b.id], () => Promise.all([write([a.id, b.id]), write([b.id, a.id])]));

    expect([...written].sort()).toEqual([false, true]);
    expect([await credits(a.id), await credits(b.id)]).toEqual([99, 99]);
  });
});
