/**
 * The RabbitMQ node that the outbox relays and the notifiers are connected to, SIGKILLed during a
 * usage load that crosses alert thresholds (CONTRACT §1, "Scale-out engines"; §6): they move to
 * another node of AMQP_URL's list, the quorum queue keeps its messages on the two nodes left,
 * and no alert is lost or sent twice.
 */
import { alive, waitFor } from '../../scripts/cluster/processes';
import { connectionsByPort, killRabbitNode } from '../../scripts/cluster/rabbitmq';
import { crossingLoad, expectAlertsOnce, expectExactAccounting } from './load';
import { useCluster } from './support';

const cluster = useCluster({ OUTBOX_POLL_MS: '200' });

describe('the RabbitMQ node of the relays and notifiers killed during a load that crosses thresholds', () => {
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
    const survivor = nodes.find((_node, index) => index !== victim) as string;

    const load = await crossingLoad(c);
    const running = load.run(6, 120_000);
    await waitFor(() => load.granted() >= 50, 60_000, 'debits before the kill');
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
  }, 240_000);
});
