import type { Debit, DebitOutcome } from './usage-batch';
import { createDebitBatcher, type DebitBatcherOptions } from './usage-batcher';

let next = 0;
const debit = (overrides: Partial<Debit> = {}): Debit => {
  next += 1;
  return { requestId: `r${next}`, digest: 'same body', accountId: 1, poolId: 1, productId: 1, units: 1, ...overrides };
};
const granted = (credits: number): DebitOutcome => ({ kind: 'granted', answer: { accountId: 1, productId: 1, credits } });

interface ManualBatch {
  debits: Debit[];
  settle(outcomes: (debit: Debit) => DebitOutcome): void;
  fail(error: Error): void;
  done: boolean;
}

/** Every batch the tests' commits were given, and every debit they submitted (see afterEach). */
const opened: ManualBatch[] = [];
const submitted: Array<Promise<DebitOutcome>> = [];

/** A commit whose batches the test settles by hand. */
function manualCommit() {
  const batches: ManualBatch[] = [];
  const commit = (debits: Debit[]): Promise<DebitOutcome[]> =>
    new Promise((resolve, reject) => {
      const batch: ManualBatch = {
        debits,
        settle: (outcome) => ((batch.done = true), resolve(debits.map(outcome))),
        fail: (error) => ((batch.done = true), reject(error)),
        done: false,
      };
      batches.push(batch);
      opened.push(batch);
    });
  return { batches, commit };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function batcher(commit: DebitBatcherOptions['commit'], options: Partial<DebitBatcherOptions> = {}) {
  // Tests that leave a batch unsettled do not see their waiting debits expire.
  const created = createDebitBatcher({ maxBatchSize: 100, maxWaitMs: 0, lanes: 1, maxQueueWaitMs: 60_000, commit, ...options });
  return {
    submit(d: Debit): Promise<DebitOutcome> {
      const answer = created.submit(d);
      // Heard here too: a test may drop an answer (`void`) that afterEach then fails.
      answer.catch(() => undefined);
      submitted.push(answer);
      return answer;
    },
  };
}

// A test that leaves a batch committing leaves the debits behind it waiting, with their expiry
// armed (maxQueueWaitMs): that timer would fire after the file has ended, and reject a debit whose
// answer the test dropped (`void`) as an unhandled rejection in whichever suite the worker runs
// then. So every batch left open fails, each lane drains, and every answer is heard.
afterEach(async () => {
  jest.useRealTimers();
  for (let open = opened.filter((batch) => !batch.done); open.length > 0; open = opened.filter((batch) => !batch.done)) {
    for (const batch of open) batch.fail(new Error('the test ended'));
    await turn();
  }
  await Promise.allSettled(submitted.splice(0));
  opened.splice(0);
});

describe('debit batcher', () => {
  it('when debits arrive in one turn, then they go out as one batch in arrival order and each gets its own outcome', async () => {
    const { batches, commit } = manualCommit();
    const b = batcher(commit);
    const debits = [debit(), debit(), debit()];
    const answers = debits.map((d) => b.submit(d));
    await turn();
    expect(batches.map((batch) => batch.debits)).toEqual([debits]);
    batches[0]?.settle((d) => granted(Number(d.requestId.slice(1))));
    expect(await Promise.all(answers)).toEqual(debits.map((d) => granted(Number(d.requestId.slice(1)))));
  });

  it('when a batch is committing, then later debits wait and go out together the moment it has committed', async () => {
    const { batches, commit } = manualCommit();
    const b = batcher(commit);
    const first = b.submit(debit());
    await turn();
    const later = [debit(), debit()];
    const waiting = later.map((d) => b.submit(d));
    await turn();
    expect(batches).toHaveLength(1);
    batches[0]?.settle(() => granted(9));
    await first;
    await turn();
    expect(batches.map((batch) => batch.debits.length)).toEqual([1, 2]);
    expect(batches[1]?.debits).toEqual(later);
    batches[1]?.settle(() => granted(7));
    expect(await Promise.all(waiting)).toEqual([granted(7), granted(7)]);
  });

  it('when more debits wait than a batch holds, then they are split by maxBatchSize', async () => {
    const { batches, commit } = manualCommit();
    const b = batcher(commit, { maxBatchSize: 2 });
    const answers = Array.from({ length: 5 }, () => b.submit(debit()));
    await turn();
    expect(batches.map((batch) => batch.debits.length)).toEqual([2]);
    batches[0]?.settle(() => granted(1));
    await turn();
    batches[1]?.settle(() => granted(1));
    await turn();
    batches[2]?.settle(() => granted(1));
    await Promise.all(answers);
    expect(batches.map((batch) => batch.debits.length)).toEqual([2, 2, 1]);
  });

  it('when maxWaitMs is set, then an idle lane waits that long for company before it commits', async () => {
    jest.useFakeTimers();
    try {
      const { batches, commit } = manualCommit();
      const b = batcher(commit, { maxWaitMs: 20 });
      void b.submit(debit());
      await jest.advanceTimersByTimeAsync(15);
      void b.submit(debit());
      expect(batches).toHaveLength(0);
      await jest.advanceTimersByTimeAsync(5);
      expect(batches.map((batch) => batch.debits.length)).toEqual([2]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('when pools fall in different lanes, then their batches commit at the same time; one pool never has two batches in flight', async () => {
    const { batches, commit } = manualCommit();
    const b = batcher(commit, { lanes: 2 });
    void b.submit(debit({ accountId: 1 }));
    void b.submit(debit({ accountId: 2 }));
    await turn();
    expect(batches.map((batch) => batch.debits.map((d) => d.accountId))).toEqual([[1], [2]]);
    void b.submit(debit({ accountId: 1 }));
    await turn();
    expect(batches).toHaveLength(2);
  });

  it('when a batch is stuck, then the debits waiting behind it answer 503 after maxQueueWaitMs, and are not committed after it', async () => {
    jest.useFakeTimers();
    try {
      const { batches, commit } = manualCommit();
      const b = batcher(commit, { maxQueueWaitMs: 1000 });
      const stuck = b.submit(debit());
      await jest.advanceTimersByTimeAsync(0);
      const early = debit();
      const behind = b.submit(early);
      let outcome: unknown = 'waiting';
      void behind.then(
        () => (outcome = 'answered'),
        (error: unknown) => (outcome = error),
      );
      await jest.advanceTimersByTimeAsync(600);
      const late = debit();
      const later = b.submit(late);
      await jest.advanceTimersByTimeAsync(400);
      expect(outcome).toMatchObject({ code: 'unavailable', retryAfterSeconds: 1 });
      batches[0]?.settle(() => granted(5));
      await stuck;
      await jest.advanceTimersByTimeAsync(0);
      // Only the debit that was still within its wait went out with the next batch.
      expect(batches[1]?.debits).toEqual([late]);
      batches[1]?.settle(() => granted(4));
      expect(await later).toEqual(granted(4));
    } finally {
      jest.useRealTimers();
    }
  });

  it('when a batch fails, then each of its debits fails with the error and the lane goes on with the next batch', async () => {
    const { batches, commit } = manualCommit();
    const b = batcher(commit);
    const failing = [b.submit(debit()), b.submit(debit())];
    await turn();
    const after = b.submit(debit());
    batches[0]?.fail(new Error('connection lost'));
    for (const answer of failing) await expect(answer).rejects.toThrow('connection lost');
    await turn();
    batches[1]?.settle(() => granted(3));
    expect(await after).toEqual(granted(3));
  });

  describe('copies of one requestId in flight', () => {
    it('when the same request arrives again while the first waits, then it is not batched twice and gets the same outcome', async () => {
      const { batches, commit } = manualCommit();
      const b = batcher(commit);
      const original = debit();
      const answers = [b.submit(original), b.submit({ ...original }), b.submit({ ...original })];
      await turn();
      expect(batches.map((batch) => batch.debits)).toEqual([[original]]);
      batches[0]?.settle(() => granted(4));
      expect(await Promise.all(answers)).toEqual([granted(4), granted(4), granted(4)]);
    });

    it('when the same request arrives while the first is committing and the batch fails, then both fail', async () => {
      const { batches, commit } = manualCommit();
      const b = batcher(commit);
      const original = debit();
      const first = b.submit(original);
      await turn();
      const copy = b.submit({ ...original });
      batches[0]?.fail(new Error('gone'));
      await expect(first).rejects.toThrow('gone');
      await expect(copy).rejects.toThrow('gone');
    });

    it('when another body reuses a requestId that the first copy got granted, then conflict without a batch of its own', async () => {
      const { batches, commit } = manualCommit();
      const b = batcher(commit);
      const original = debit();
      const first = b.submit(original);
      const other = b.submit({ ...original, digest: 'another body', units: 2 });
      await turn();
      batches[0]?.settle(() => granted(4));
      expect(await first).toEqual(granted(4));
      expect(await other).toEqual({ kind: 'conflict' });
      expect(batches).toHaveLength(1);
    });

    it('when another body reuses a requestId whose first copy was refused, then it is decided on its own (a refusal leaves the id free)', async () => {
      const { batches, commit } = manualCommit();
      const b = batcher(commit);
      const original = debit({ units: 50 });
      const first = b.submit(original);
      const other = b.submit({ ...original, digest: 'another body', units: 1 });
      await turn();
      batches[0]?.settle(() => ({ kind: 'exhausted' }));
      expect(await first).toEqual({ kind: 'exhausted' });
      await turn();
      expect(batches[1]?.debits).toEqual([{ ...original, digest: 'another body', units: 1 }]);
      batches[1]?.settle(() => granted(9));
      expect(await other).toEqual(granted(9));
    });
  });
});
