/**
 * A usage load that crosses alert thresholds, for the fault tests: low accounts go from 35 to 5
 * (one low alert each), zero accounts from 5 to 0 (one zero alert each). One crossing per
 * account, so the order in which two notifiers see the events cannot change what is owed.
 */
import { randomUUID } from 'node:crypto';
import { ledgerByRequest, type Cluster } from './support';
import { waitFor } from '@platform/testing/cluster';

export interface Debit {
  accountId: number;
  apiKey: string;
  requestId: string;
  /** Every answer, in order: a client sends a debit again under its requestId until it is 200. */
  statuses: Array<number | string>;
  /** When each attempt was sent and answered (ms since the epoch), in the order of `statuses`. */
  spans: Array<{ sentAt: number; answeredAt: number }>;
}

interface Account {
  id: number;
  apiKey: string;
  email: string;
}

export interface CrossingLoad {
  low: Account[];
  zero: Account[];
  debits: Debit[];
  /** Runs the debits on `workers` concurrent clients; resolves when every one is settled (or the deadline passed). */
  run(workers: number, deadlineMs: number): Promise<void>;
  /** Debits answered 200 so far. */
  granted(): number;
}

/**
 * Sends a debit until it is answered: again under its requestId after a 503 or no answer (as a
 * client does), until a 200, another status, or the deadline.
 */
export async function settleDebit(send: (debit: Debit) => Promise<number>, debit: Debit, deadline: number): Promise<void> {
  for (;;) {
    const sentAt = Date.now();
    const status = await send(debit).catch((error: Error) => `no answer: ${error.message}`);
    debit.statuses.push(status);
    debit.spans.push({ sentAt, answeredAt: Date.now() });
    if (status === 200 || (typeof status === 'number' && status !== 503) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const settle = (c: Cluster, debit: Debit, deadline: number): Promise<void> =>
  settleDebit(
    (sent) => c.debit(c.front('user'), { credential: sent.apiKey, productId: 1, requestId: sent.requestId }).then((reply) => reply.status),
    debit,
    deadline,
  );

export async function crossingLoad(c: Cluster): Promise<CrossingLoad> {
  const low = await Promise.all(Array.from({ length: 6 }, () => c.createAccount({ 1: 35 })));
  const zero = await Promise.all(Array.from({ length: 3 }, () => c.createAccount({ 1: 5 })));
  const debitsOf = (account: Account, count: number): Debit[] =>
    Array.from({ length: count }, () => ({
      accountId: account.id,
      apiKey: account.apiKey,
      requestId: randomUUID(),
      statuses: [],
      spans: [],
    }));
  const debits = [...low.flatMap((account) => debitsOf(account, 30)), ...zero.flatMap((account) => debitsOf(account, 5))].sort(
    () => Math.random() - 0.5,
  );
  return {
    low,
    zero,
    debits,
    granted: () => debits.filter((debit) => debit.statuses.includes(200)).length,
    async run(workers, deadlineMs) {
      const deadline = Date.now() + deadlineMs;
      const queue = [...debits];
      const worker = async (): Promise<void> => {
        for (let debit = queue.shift(); debit; debit = queue.shift()) await settle(c, debit, deadline);
      };
      await Promise.all(Array.from({ length: workers }, () => worker()));
    },
  };
}

export function mailsTo(c: Cluster, email: string): string[] {
  return c.smtp.messages.filter((mail) => JSON.stringify(mail.to ?? '').includes(email)).map((mail) => mail.subject ?? '');
}

/** Every debit is in the ledger exactly once, and each pool ended where the load leaves it. */
export async function expectExactAccounting(c: Cluster, load: CrossingLoad): Promise<void> {
  const ledgers = await Promise.all([...load.low, ...load.zero].map((account) => ledgerByRequest(c.pool, account.id)));
  const ledger = new Map(ledgers.flatMap((rows) => [...rows]));
  for (const debit of load.debits)
    expect({ id: debit.requestId, deltas: ledger.get(debit.requestId) }).toEqual({ id: debit.requestId, deltas: [-1] });
  expect(ledger.size).toBe(load.debits.length);
  for (const account of load.low)
    expect((await c.balance(c.front('user'), account.apiKey)).json()).toMatchObject({ data: [{ credits: 5 }] });
  for (const account of load.zero)
    expect((await c.balance(c.front('user'), account.apiKey)).json()).toMatchObject({ data: [{ credits: 0 }] });
}

/**
 * Every alert arrives, exactly once: after all of them, a sentinel crossing is made and awaited,
 * so that nothing is still on its way to be sent a second time when the counts are taken.
 */
export async function expectAlertsOnce(c: Cluster, load: CrossingLoad): Promise<void> {
  await c.smtp.waitFor(load.low.length + load.zero.length, 90_000);
  const sentinel = await c.createAccount({ 1: 1 });
  expect((await c.debit(c.front('user'), { credential: sentinel.apiKey, productId: 1, requestId: randomUUID() })).status).toBe(200);
  await waitFor(() => mailsTo(c, sentinel.email).length === 1, 60_000, "the sentinel's alert");
  for (const account of load.low) expect(mailsTo(c, account.email)).toEqual([expect.stringMatching(/^Low balance alert/)]);
  for (const account of load.zero) expect(mailsTo(c, account.email)).toEqual([expect.stringMatching(/^Zero balance alert/)]);
  expect(c.smtp.messages.length).toBe(load.low.length + load.zero.length + 1);
}
