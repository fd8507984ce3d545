import type { StoredAnswer } from './usage-reads';
import { decideBatch, poolChanges, type Debit } from './usage-batch';

let next = 0;
const debit = (overrides: Partial<Debit> = {}): Debit => {
  next += 1;
  return { requestId: `r${next}`, digest: `d${next}`, accountId: 7, poolId: 1, productId: 1, units: 1, ...overrides };
};
const credits = (entries: Record<string, number>): Map<string, number> => new Map(Object.entries(entries));

describe('decideBatch', () => {
  it('when debits exceed the credits, then they are granted in arrival order while credits last and the rest are exhausted', () => {
    const debits = [debit(), debit(), debit(), debit()];
    const decision = decideBatch(debits, credits({ '7:1': 2 }), new Map());
    expect(decision.outcomes.map((outcome) => outcome.kind)).toEqual(['granted', 'granted', 'exhausted', 'exhausted']);
    expect(decision.outcomes[0]).toEqual({ kind: 'granted', answer: { accountId: 7, productId: 1, credits: 1 } });
    expect(decision.outcomes[1]).toEqual({ kind: 'granted', answer: { accountId: 7, productId: 1, credits: 0 } });
    // Two debits to 0: the run to the last one, then the last one to 0 (poolChanges), each with its ledger row and answer.
    expect(decision.granted).toBe(2);
    expect(decision.changes).toEqual([
      {
        kind: 'credits',
        accountId: 7,
        poolId: 1,
        previousCredits: 2,
        credits: 1,
        entries: [{ delta: -1, credits: 1, cause: 'usage', productId: 1, requestId: debits[0]?.requestId, digest: debits[0]?.digest }],
      },
      {
        kind: 'credits',
        accountId: 7,
        poolId: 1,
        previousCredits: 1,
        credits: 0,
        entries: [{ delta: -1, credits: 0, cause: 'usage', productId: 1, requestId: debits[1]?.requestId, digest: debits[1]?.digest }],
      },
    ]);
  });

  it('when a large debit cannot be paid, then it fails whole and a smaller one after it is still granted', () => {
    const decision = decideBatch([debit({ units: 5 }), debit({ units: 2 }), debit({ units: 2 })], credits({ '7:1': 3 }), new Map());
    expect(decision.outcomes.map((outcome) => outcome.kind)).toEqual(['exhausted', 'granted', 'exhausted']);
    expect(decision.balances).toEqual([{ accountId: 7, poolId: 1, previousCredits: 3, credits: 1 }]);
  });

  it('when the account does not hold the pool, then exhausted and nothing is written for it', () => {
    const decision = decideBatch([debit({ poolId: 7, productId: 7 })], credits({ '7:1': 3 }), new Map());
    expect(decision.outcomes).toEqual([{ kind: 'exhausted' }]);
    expect(decision).toMatchObject({ granted: 0, changes: [], balances: [] });
  });

  it('when a requestId has a kept answer, then the same digest replays it and another digest conflicts; neither debits', () => {
    const replay = debit();
    const reuse = debit();
    const known = new Map<string, StoredAnswer>([
      [replay.requestId, { digest: replay.digest, accountId: 7, productId: 24, credits: 40 }],
      [reuse.requestId, { digest: 'another body', accountId: 8, productId: 1, credits: 3 }],
    ]);
    const decision = decideBatch([replay, reuse, debit()], credits({ '7:1': 10 }), known);
    expect(decision.outcomes).toEqual([
      { kind: 'replayed', answer: { accountId: 7, productId: 24, credits: 40 } },
      { kind: 'conflict' },
      { kind: 'granted', answer: { accountId: 7, productId: 1, credits: 9 } },
    ]);
    expect(decision.granted).toBe(1);
  });

  it('when a batch spans pools and accounts, then each pool is decided on its own credits', () => {
    const decision = decideBatch(
      [debit(), debit({ accountId: 8 }), debit({ poolId: 14, productId: 27, units: 3 }), debit()],
      credits({ '7:1': 1, '8:1': 5, '7:14': 3 }),
      new Map(),
    );
    expect(decision.outcomes.map((outcome) => outcome.kind)).toEqual(['granted', 'granted', 'granted', 'exhausted']);
    expect(decision.balances).toEqual([
      { accountId: 7, poolId: 1, previousCredits: 1, credits: 0 },
      { accountId: 8, poolId: 1, previousCredits: 5, credits: 4 },
      { accountId: 7, poolId: 14, previousCredits: 3, credits: 0 },
    ]);
    expect(decision.changes.map((change) => (change.kind === 'credits' ? change.entries.length : 0))).toEqual([1, 1, 1]);
  });

  it('when a run of debits stays above 0, then its pool is one change holding every ledger row in order', () => {
    const debits = [debit({ units: 2 }), debit({ units: 3 })];
    const decision = decideBatch(debits, credits({ '7:1': 10 }), new Map());
    expect(decision.changes).toMatchObject([
      {
        kind: 'credits',
        previousCredits: 10,
        credits: 5,
        entries: [
          { delta: -2, credits: 8 },
          { delta: -3, credits: 5 },
        ],
      },
    ]);
  });

  it('when every debit of a pool is refused, then its balance is reported unchanged and nothing is written', () => {
    const decision = decideBatch([debit({ units: 9 })], credits({ '7:1': 3 }), new Map());
    expect(decision.balances).toEqual([{ accountId: 7, poolId: 1, previousCredits: 3, credits: 3 }]);
    expect(decision).toMatchObject({ granted: 0, changes: [] });
  });
});

describe('poolChanges (the balance.changed events of one pool in a batch)', () => {
  it('when nothing was granted, then no event', () => {
    expect(poolChanges(7, 1, 10, [])).toEqual([]);
  });

  it('when the run ends above 0, then one event for the whole run', () => {
    expect(poolChanges(7, 1, 20, [19, 18, 12])).toEqual([{ accountId: 7, poolId: 1, previousCredits: 20, credits: 12 }]);
  });

  it('when a single debit empties the pool, then one event to 0', () => {
    expect(poolChanges(7, 1, 15, [0])).toEqual([{ accountId: 7, poolId: 1, previousCredits: 15, credits: 0 }]);
  });

  it('when several debits empty the pool, then the run down to the last debit, then the last debit to 0 (low band, then zero)', () => {
    expect(poolChanges(7, 1, 12, [11, 5, 1, 0])).toEqual([
      { accountId: 7, poolId: 1, previousCredits: 12, credits: 1 },
      { accountId: 7, poolId: 1, previousCredits: 1, credits: 0 },
    ]);
  });
});
