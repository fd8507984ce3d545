/**
 * The Postgres primary killed during a usage load (CONTRACT §1, "Scale-out engines"): Patroni
 * promotes the synchronous standby, HAProxy moves to it, and the services, the outbox relay and
 * the notifiers go on without a restart. Every debit answered 200 is in the ledger once, requests
 * caught in the switch answer 503 (never 500) within 5 s of their arrival (CONTRACT §1, faults
 * answer fast; docs/operations.md "Timeouts"), and every alert is sent exactly once.
 */
import { alive, killPostgresNode, patroniRoles, waitFor } from '@platform/testing/cluster';
import { crossingLoad, expectAlertsOnce, expectExactAccounting } from './load';
import { useCluster } from './support';

const cluster = useCluster({ OUTBOX_POLL_MS: '200' });

describe('the Postgres primary killed during a usage load', () => {
  test('then a standby takes over, every debit answered 200 is in the ledger once, the switch answers 503 only and within 5 s, and every alert goes out once', async () => {
    const c = cluster();
    const servicePids = c.state.processes.filter((entry) => entry.component === 'service').map((entry) => entry.pid);
    const load = await crossingLoad(c);
    const oldPrimary = (await patroniRoles(c.state.ports, 'primary')).indexOf(true);
    expect(oldPrimary).toBeGreaterThanOrEqual(0);
    // As many clients as the measured outage had, each retrying a 503 under the same requestId.
    const running = load.run(12, 150_000);
    await waitFor(() => load.granted() >= 50, 60_000, 'debits before the kill');

    killPostgresNode(c.state.dir, c.pid(`patroni-${oldPrimary + 1}`), oldPrimary);
    const killedAt = Date.now();
    await waitFor(
      async () => (await patroniRoles(c.state.ports, 'primary')).indexOf(true) === 1 - oldPrimary,
      90_000,
      'the standby to be promoted',
    );
    const promotedAt = Date.now();
    await running;

    // The fault hit: the old primary's Patroni is gone, the other node is primary, and debits were
    // in flight when it died (sent before the kill, answered after it). None got anything but 200
    // or 503, and none waited 5 s or more for its answer: neither the ones inside a transaction on
    // the killed primary nor the ones pgbouncer had no server for.
    expect(alive(c.pid(`patroni-${oldPrimary + 1}`))).toBe(false);
    const caught = load.debits.flatMap((debit) => debit.spans).filter((span) => span.sentAt < killedAt && span.answeredAt >= killedAt);
    expect(caught.length).toBeGreaterThan(0);
    const answers = load.debits.flatMap((debit) => debit.statuses);
    expect(answers.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    const slow = load.debits.flatMap((debit) => debit.spans).filter((span) => span.answeredAt - span.sentAt >= 5000);
    expect(slow).toEqual([]);
    expect(load.debits.filter((debit) => !debit.statuses.includes(200)).map((debit) => debit.requestId)).toEqual([]);
    // No service restarted.
    expect(servicePids.filter((pid) => !alive(pid))).toEqual([]);

    await expectExactAccounting(c, load);
    // The relay and the notifiers resumed on the new primary.
    await expectAlertsOnce(c, load);
    // Some alerts were sent after the switch (the notifiers and the relay work on the new primary).
    expect(c.smtp.messages.filter((mail) => (mail.date?.getTime() ?? 0) >= promotedAt - 1000).length).toBeGreaterThan(0);
    expect(promotedAt).toBeGreaterThan(killedAt);
  }, 240_000);
});
