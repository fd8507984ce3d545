import { summarize } from './summary';
import type { History, Op } from './history';

const op = (id: number, f: Op['f'], status: Op['status'], took: number, requestId?: string): Op => ({
  id,
  client: 0,
  f,
  account: 1,
  start: 0,
  end: took,
  status,
  type: status === 200 ? 'ok' : 'info',
  ...(requestId ? { requestId } : {}),
});

describe('the summary of a chaos run', () => {
  test('counts operations by kind and status, the longest answer and the debits left unknown', () => {
    const history: History = {
      seed: 1,
      ops: [op(1, 'debit', 503, 40, 'a'), op(2, 'debit', 200, 30, 'a'), op(3, 'debit', 'timeout', 15_000, 'b'), op(4, 'issue', 200, 5)],
      final: { accounts: [], mails: [], webhooks: [] },
    };
    expect(summarize(history)).toBe(
      'operations: 4 (debit 200: 1, debit 503: 1, debit timeout: 1, issue 200: 1); longest answer 15000 ms; debits still unknown after settling: 1',
    );
  });
});
