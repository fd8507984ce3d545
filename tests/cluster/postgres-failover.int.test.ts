/**
 * The Postgres primary killed during a usage load (CONTRACT §1, "Scale-out engines"): Patroni
 * promotes the synchronous standby, HAProxy moves to it, and the services, the outbox relay and
 * the notifiers go on without a restart. Every debit answered 200 is in the ledger once, requests
 * caught in the switch answer 503 (never 500), and every alert is sent exactly once.
 */
import { randomUUID } from 'node:crypto';
import { alive, waitFor } from '../../scripts/cluster/processes';
import { killPostgresNode, patroniRoles } from '../../scripts/cluster/postgres';
import { ledgerByRequest, useCluster, type Cluster } from './support';

const cluster = useCluster({ OUTBOX_POLL_MS: '200' });

interface Debit {
  accountId: number;
  apiKey: string;
  requestId: string;
  statuses: Array<number | string>;
}

/** Sends a debit until it is answered 200, as a client does with its requestId; every answer is kept. */
async function settle(c: Cluster, debit: Debit, deadline: number): Promise<void> {
  for (;;) {
    const status = await c
      .debit(c.front('user'), { credential: debit.apiKey, productId: 1, requestId: debit.requestId })
      .then((reply) => reply.status)
      .catch((error: Error) => `no answer: ${error.message}`);
    debit.statuses.push(status);
    if (status === 200 || (typeof status === 'number' && status !== 503)) return;
    if (Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function mailsTo(c: Cluster, email: string): string[] {
  return c.smtp.messages.filter((mail) => JSON.stringify(mail.to ?? '').includes(email)).map((mail) => mail.subject ?? '');
}

describe('the Postgres primary killed during a usage load', () => {
  test('then a standby takes over, every debit answered 200 is in the ledger once, the switch answers 503 only, and every alert goes out once', async () => {
    const c = cluster();
    const servicePids = c.state.processes.filter((entry) => entry.component === 'service').map((entry) => entry.pid);
    // Low accounts go from 35 to 5 (one low alert each), zero accounts from 5 to 0 (one zero
    // alert each): one crossing per account, so the order two notifiers see them in cannot matter.
    const low = await Promise.all(Array.from({ length: 6 }, () => c.createAccount({ 1: 35 })));
    const zero = await Promise.all(Array.from({ length: 3 }, () => c.createAccount({ 1: 5 })));
    const debits: Debit[] = [
      ...low.flatMap((account) =>
        Array.from({ length: 30 }, () => ({ accountId: account.id, apiKey: account.apiKey, requestId: randomUUID(), statuses: [] })),
      ),
      ...zero.flatMap((account) =>
        Array.from({ length: 5 }, () => ({ accountId: account.id, apiKey: account.apiKey, requestId: randomUUID(), statuses: [] })),
      ),
    ].sort(() => Math.random() - 0.5);

    const oldPrimary = (await patroniRoles(c.state.ports, 'primary')).indexOf(true);
    expect(oldPrimary).toBeGreaterThanOrEqual(0);
    const deadline = Date.now() + 150_000;
    const queue = [...debits];
    const worker = async (): Promise<void> => {
      for (let debit = queue.shift(); debit; debit = queue.shift()) await settle(c, debit, deadline);
    };
    const workers = Array.from({ length: 6 }, () => worker());
    await waitFor(() => debits.filter((debit) => debit.statuses.includes(200)).length >= 50, 60_000, 'debits before the kill');

    killPostgresNode(c.state.dir, c.pid(`patroni-${oldPrimary + 1}`), oldPrimary);
    const killedAt = Date.now();
    await waitFor(
      async () => (await patroniRoles(c.state.ports, 'primary')).indexOf(true) === 1 - oldPrimary,
      90_000,
      'the standby to be promoted',
    );
    const promotedAt = Date.now();
    await Promise.all(workers);

    // The fault hit: the old primary's Patroni is gone, the other node is primary, and requests
    // were caught in the switch.
    expect(alive(c.pid(`patroni-${oldPrimary + 1}`))).toBe(false);
    const answers = debits.flatMap((debit) => debit.statuses);
    expect(answers.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(answers.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(debits.filter((debit) => !debit.statuses.includes(200)).map((debit) => debit.requestId)).toEqual([]);
    // No service restarted.
    expect(servicePids.filter((pid) => !alive(pid))).toEqual([]);

    const ledgers = await Promise.all([...low, ...zero].map((account) => ledgerByRequest(c.pool, account.id)));
    const ledger = new Map(ledgers.flatMap((rows) => [...rows]));
    for (const debit of debits)
      expect({ id: debit.requestId, deltas: ledger.get(debit.requestId) }).toEqual({ id: debit.requestId, deltas: [-1] });
    expect(ledger.size).toBe(debits.length);
    for (const account of low) expect((await c.balance(c.front('user'), account.apiKey)).json()).toMatchObject({ data: [{ credits: 5 }] });
    for (const account of zero) expect((await c.balance(c.front('user'), account.apiKey)).json()).toMatchObject({ data: [{ credits: 0 }] });

    // The relay and the notifiers resumed: every alert arrives, and a crossing made after all of
    // them (a sentinel) arrives last, so nothing is still on its way to be sent twice.
    await c.smtp.waitFor(low.length + zero.length, 60_000);
    const sentinel = await c.createAccount({ 1: 1 });
    expect((await c.debit(c.front('user'), { credential: sentinel.apiKey, productId: 1, requestId: randomUUID() })).status).toBe(200);
    await waitFor(() => mailsTo(c, sentinel.email).length === 1, 60_000, "the sentinel's alert");
    for (const account of low) expect(mailsTo(c, account.email)).toEqual([expect.stringMatching(/^Low balance alert/)]);
    for (const account of zero) expect(mailsTo(c, account.email)).toEqual([expect.stringMatching(/^Zero balance alert/)]);
    expect(c.smtp.messages.length).toBe(low.length + zero.length + 1);
    // Some alerts were sent after the switch (the notifiers and the relay work on the new primary).
    expect(c.smtp.messages.filter((mail) => (mail.date?.getTime() ?? 0) >= promotedAt - 1000).length).toBeGreaterThan(0);
    expect(promotedAt).toBeGreaterThan(killedAt);
  }, 240_000);
});
