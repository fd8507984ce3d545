import { check, verdict } from './checker';
import { fromJsonLines, toJsonLines, type History, type Op } from './history';

type Step = Omit<Op, 'id' | 'client' | 'account' | 'type'> & { type?: Op['type'] };

const outcomeOf = (status: Op['status']): Op['type'] =>
  status === 503 || typeof status !== 'number' ? 'info' : status < 300 ? 'ok' : 'fail';

/**
 * A valid history of one account (threshold 10): created with 12, a token, debits to 9 (a low
 * crossing) with a retried requestId, a rotation, a disable and an enable, a 9-unit debit to 0 (a
 * zero crossing), a refused mint, a top-up, a mint again, a refused debit.
 */
function valid(): History {
  const steps: Step[] = [
    { f: 'create', start: 0, end: 10, status: 201, amount: 12, credits: 12 },
    { f: 'issue', start: 20, end: 30, status: 200, credential: { key: 0 } },
    { f: 'debit', start: 40, end: 50, status: 200, credential: { token: 2 }, requestId: 'r1', amount: 1, credits: 11 },
    { f: 'debit', start: 60, end: 70, status: 503, retryAfter: true, credential: { token: 2 }, requestId: 'r2', amount: 1 },
    { f: 'debit', start: 80, end: 90, status: 200, credential: { token: 2 }, requestId: 'r2', amount: 1, credits: 10 },
    { f: 'debit', start: 100, end: 110, status: 200, credential: { key: 0 }, requestId: 'r3', amount: 1, credits: 9 },
    { f: 'rotate', start: 120, end: 130, status: 200, credential: { key: 0 }, from: 0, to: 1 },
    { f: 'balance', start: 140, end: 150, status: 200, credential: { key: 1 } },
    { f: 'balance', start: 140, end: 150, status: 401, credential: { token: 2 } },
    { f: 'disable', start: 160, end: 170, status: 200 },
    { f: 'balance', start: 180, end: 190, status: 401, credential: { key: 1 } },
    { f: 'enable', start: 200, end: 210, status: 200 },
    { f: 'issue', start: 220, end: 230, status: 200, credential: { key: 1 } },
    { f: 'debit', start: 240, end: 250, status: 200, credential: { token: 13 }, requestId: 'r4', amount: 9, credits: 0 },
    { f: 'issue', start: 260, end: 270, status: 401, credential: { key: 1 } },
    { f: 'top-up', start: 280, end: 290, status: 200, amount: 5, credits: 5 },
    { f: 'issue', start: 300, end: 310, status: 200, credential: { key: 1 } },
    { f: 'debit', start: 320, end: 330, status: 403, credential: { key: 1 }, requestId: 'r5', amount: 9 },
  ];
  const ops = steps.map((step, index) => ({ id: index + 1, client: 0, account: 1, type: outcomeOf(step.status), ...step }));
  const usage = (requestId: string, delta: number, creditsAfter: number) => ({ cause: 'usage' as const, delta, creditsAfter, requestId });
  const ledger = [
    { cause: 'top-up' as const, delta: 12, creditsAfter: 12, requestId: null },
    usage('r1', -1, 11),
    usage('r2', -1, 10),
    usage('r3', -1, 9),
    usage('r4', -9, 0),
    { cause: 'top-up' as const, delta: 5, creditsAfter: 5, requestId: null },
  ];
  const alerts = [
    { account: 1, kind: 'low' as const },
    { account: 1, kind: 'zero' as const },
  ];
  return {
    seed: 7,
    ops,
    final: { accounts: [{ account: 1, credits: 5, threshold: 10, ledger }], mails: [...alerts], webhooks: [...alerts] },
  };
}

const rules = (history: History): string[] => check(history).map((anomaly) => anomaly.rule);
const op = (history: History, id: number): Op => history.ops[id - 1] as Op;
/** The operation answered `status` instead (its outcome follows). */
function answer(history: History, id: number, status: Op['status']): void {
  op(history, id).status = status;
  op(history, id).type = outcomeOf(status);
}
const end = (history: History) => history.final.accounts[0] as History['final']['accounts'][number];

describe('the chaos checker', () => {
  test('checks a history of a 30-minute run (thousands of disables, each read after it) within seconds', () => {
    const history = valid();
    for (let index = 0; index < 3000; index += 1) {
      const at = 400 + index * 100;
      const steps: Step[] = [
        { f: 'disable', start: at, end: at + 10, status: 200 },
        { f: 'balance', start: at + 20, end: at + 30, status: 401, credential: { key: 1 } },
        { f: 'enable', start: at + 40, end: at + 50, status: 200 },
        { f: 'balance', start: at + 60, end: at + 70, status: 200, credential: { key: 1 } },
      ];
      for (const step of steps)
        history.ops.push({ id: history.ops.length + 1, client: 0, account: 1, type: outcomeOf(step.status), ...step });
    }
    const started = Date.now();
    expect(rules(history)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('finds nothing in a valid history, and says so with the seed', () => {
    const history = valid();
    expect(check(history)).toEqual([]);
    expect(verdict(history, [])).toBe('chaos seed 7: valid (18 operations)');
  });

  test('reads back the JSON lines it writes', () => {
    const history = valid();
    expect(fromJsonLines(toJsonLines(history))).toEqual(history);
  });

  test('a debit answered 200 missing from the ledger is a lost debit', () => {
    const history = valid();
    end(history).ledger.splice(3, 1);
    expect(rules(history)).toContain('lost-debit');
  });

  test('a requestId in the ledger twice is a double debit, and the pool no longer adds up', () => {
    const history = valid();
    end(history).ledger.splice(2, 0, { cause: 'usage', delta: -1, creditsAfter: 10, requestId: 'r1' });
    end(history).credits = 4;
    expect(rules(history)).toEqual(['double-debit', 'balance-mismatch']);
  });

  test('a refused debit in the ledger, a debit never sent, and a pool below 0 are anomalies', () => {
    const history = valid();
    end(history).ledger.push({ cause: 'usage', delta: -9, creditsAfter: -4, requestId: 'r5' });
    end(history).ledger.push({ cause: 'usage', delta: -1, creditsAfter: -5, requestId: 'ghost' });
    end(history).credits = -5;
    expect(rules(history)).toEqual(expect.arrayContaining(['refused-debit-applied', 'phantom-debit', 'negative-pool']));
  });

  test('an unknown debit may be in the ledger once or not at all', () => {
    const history = valid();
    answer(history, 5, 'timeout');
    delete op(history, 5).credits;
    expect(rules(history)).toEqual(['no-answer']);
  });

  test('the replaced key accepted after the rotation answered is a revived key', () => {
    const history = valid();
    history.ops.push({ ...op(history, 8), id: 19, start: 131, end: 135, credential: { key: 0 } });
    expect(rules(history)).toEqual(['revoked-credential-accepted']);
  });

  test.each([
    ['a token minted under the replaced key, accepted after the rotation answered', 9, 'revoked-credential-accepted'],
    ['a credential accepted after a disable answered, before any enable', 11, 'disable-not-honoured'],
    ['a token minted after the emptying debit answered, before any top-up', 15, 'empty-account-minted'],
  ])('%s: op %i answered 200 is %s', (_what, id, rule) => {
    const history = valid();
    answer(history, id, 200);
    expect(rules(history)).toEqual([rule]);
  });

  test('a request overlapping an enable may be accepted; a token minted before the disable may not, even after it', () => {
    const history = valid();
    history.ops.push({ ...op(history, 8), id: 19, start: 205, end: 215 });
    expect(rules(history)).toEqual([]);
    history.ops.push({ ...op(history, 3), id: 20, start: 215, end: 218, credential: { token: 2 }, requestId: 'x' });
    expect(rules(history)).toEqual(expect.arrayContaining(['disable-not-honoured']));
  });

  test('two alerts for one crossing are a duplicate, none a missing alert, on either channel', () => {
    const duplicate = valid();
    duplicate.final.mails.push({ account: 1, kind: 'low' });
    expect(rules(duplicate)).toEqual(['duplicate-alert']);
    const missing = valid();
    missing.final.webhooks = missing.final.webhooks.filter((alert) => alert.kind !== 'zero');
    expect(rules(missing)).toEqual(['missing-alert']);
  });

  test('a 500, a 503 without Retry-After and a request over 5 s are anomalies; a 503 within 5 s is not', () => {
    const history = valid();
    answer(history, 8, 500);
    op(history, 4).retryAfter = false;
    op(history, 10).end = op(history, 10).start + 5001;
    expect(rules(history)).toEqual(['503-without-retry-after', 'server-error', 'slow']);
    expect(verdict(history, check(history))).toMatch(
      /^chaos seed 7: INVALID: 3 anomalies[^]*server-error \(op 8, account 1\): balance answered 500/,
    );
  });
});
