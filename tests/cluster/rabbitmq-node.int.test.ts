/**
 * The RabbitMQ node that the outbox relays and the notifiers are connected to, SIGKILLed during a
 * usage load that crosses alert thresholds while events provably sit unconfirmed on it (CONTRACT
 * §1, "Scale-out engines"; §6): a memory alarm raised on that node blocks every publisher before
 * the load, so the relays' publishes wait on it, unconfirmed, and their outbox rows stay pending.
 * The relays and notifiers move to another node of AMQP_URL's list, the unconfirmed events go out
 * again there (publisher confirms and the outbox's retry), the quorum queue keeps its messages on
 * the two nodes left, and no alert is lost or sent twice.
 */
import { unpublishedEvents } from '@platform/testing';
import { alive, connectionsByPort, killRabbitNode, rabbitmqctl, waitFor } from '@platform/testing/cluster';
import { crossingLoad, expectAlertsOnce, expectExactAccounting } from './load';
import { useCluster } from './support';

const cluster = useCluster({ OUTBOX_POLL_MS: '200' });

describe('the RabbitMQ node of the relays and notifiers killed while a load that crosses thresholds has events unconfirmed on it', () => {
  test('then they reconnect to another node, and every alert is sent exactly once', async () => {
    const c = cluster();
    const { rabbitmqHome: home, rabbitmqNodes: nodes } = c.state;
    const amqpPorts = c.state.ports.rabbitmq.map((node) => node.amqp);
    // The user replicas (relays) and the notifiers connect to the first node that answers.
    const before = await connectionsByPort(home, nodes[0] as string);
    const [busiestPort, held] = Object.entries(before).sort((a, b) => b[1] - a[1])[0] ?? ['0', 0];
    expect(held).toBeGreaterThanOrEqual(4);
    const victim = amqpPorts.indexOf(Number(busiestPort));
    expect(victim).toBeGreaterThanOrEqual(0);
    const victimNode = nodes[victim] as string;
    const survivor = nodes.find((_node, index) => index !== victim) as string;

    // A memory alarm (watermark 0, documented to block all publishing at once): the broker stops
    // reading from every connection that publishes, so no publish made from now on is confirmed.
    await rabbitmqctl(home, victimNode, ['set_vm_memory_high_watermark', '0']);
    const load = await crossingLoad(c);
    const running = load.run(6, 180_000);
    const zeroDebits = load.debits.filter((debit) => load.zero.some((account) => account.id === debit.accountId));
    await waitFor(
      () => load.granted() >= 50 && zeroDebits.every((debit) => debit.statuses.includes(200)),
      60_000,
      'debits, and every zero crossing, before the kill',
    );
    // At the kill: the relays' connections on the victim are blocked with their publishes, and
    // the events of the load (every zero crossing among them) are not confirmed.
    const blocked = (
      JSON.parse(await rabbitmqctl(home, victimNode, ['list_connections', 'port', 'state', '--formatter', 'json'])) as Array<{
        port: number;
        state: string;
      }>
    ).filter((connection) => connection.port === Number(busiestPort) && connection.state === 'blocked').length;
    const pending = await unpublishedEvents(
      c.pool,
      load.zero.map((account) => account.id),
      0,
    );
    const vm = killRabbitNode(c.state.dir, victim, c.pid(`rabbitmq-${victim + 1}`));
    expect(vm).toBeDefined();
    await waitFor(() => !alive(vm as number), 10_000, 'the node to die');
    await running;

    // The fault hit: the node is gone, and its clients now hold connections to the others.
    await waitFor(
      async () => {
        const after = await connectionsByPort(home, survivor);
        return after[Number(busiestPort)] === undefined && Object.values(after).reduce((sum, count) => sum + count, 0) >= held;
      },
      60_000,
      'the relays and notifiers to reconnect to the nodes left',
    );
    // Debits never wait for the broker (the outbox): every one was answered 200 at once.
    expect(load.debits.flatMap((debit) => debit.statuses).filter((status) => status !== 200)).toEqual([]);
    await expectExactAccounting(c, load);
    await expectAlertsOnce(c, load);
    // What was at stake at the kill (checked last, so that a lost event shows as the lost alert it is).
    expect({ blocked: blocked > 0, zeroCrossingsPending: pending.pending }).toEqual({
      blocked: true,
      zeroCrossingsPending: load.zero.length,
    });
  }, 300_000);
});
