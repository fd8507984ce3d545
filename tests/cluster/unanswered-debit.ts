import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { alive, restartReplica, stopProcess, waitFor, writeState } from '@platform/testing/cluster';
import { ledgerByRequest, waitForReplica, type Cluster } from './support';

const UNITS = 7;
const STARTING = 100;

/** Starts user-1 again with `extra` on top of the cluster's environment, and waits until HAProxy counts it UP. */
async function replaceUserOne(c: Cluster, extra: Record<string, string>): Promise<void> {
  await stopProcess(c.pid('user-1'));
  const restarted = restartReplica(c.state.ports, { ...c.state.env, ...extra }, path.join(c.state.dir, 'logs'), 'user-1');
  c.state.processes = c.state.processes.map((entry) => (entry.name === 'user-1' ? restarted : entry));
  writeState(c.state);
  await waitForReplica(c, 'user', 0);
}

/**
 * A user replica SIGKILLed while a debit it committed is unanswered (CONTRACT §9): user-1 runs
 * with the pause point `usage-after-commit` (services/user/src/pause-point.ts), so its first
 * debit batch commits and then waits. The ledger shows the debit committed, the replica is
 * killed there, and the client sends the same requestId again through HAProxy, which can only
 * reach user-2. It must answer what user-1 would have (the credits after the one debit), and the
 * pool must be debited once. user-1 is started again as it was, for whatever runs next.
 */
export async function unansweredDebitReplayed(c: Cluster): Promise<void> {
  const account = await c.createAccount({ 1: STARTING });
  await replaceUserOne(c, { TEST_PAUSE_AT: 'usage-after-commit' });
  const log = path.join(c.state.dir, 'logs', 'user-1.log');
  const logFrom = statSync(log).size;

  const requestId = randomUUID();
  const body = { credential: account.apiKey, productId: 1, units: UNITS, requestId };
  const first = c.debit(c.replica('user', 0), body).then(
    (reply) => reply.status,
    () => 'no answer',
  );
  await waitFor(
    () => readFileSync(log, 'utf8').slice(logFrom).includes('PAUSED AT usage-after-commit'),
    30_000,
    'user-1 to pause after the commit',
  );
  // Committed and not answered: the ledger holds the debit while its request still waits.
  expect(Object.fromEntries(await ledgerByRequest(c.pool, account.id))).toEqual({ [requestId]: [-UNITS] });

  const victim = c.pid('user-1');
  process.kill(victim, 'SIGKILL');
  await waitFor(() => !alive(victim), 10_000, 'user-1 to die');
  expect(await first).toBe('no answer');
  await waitFor(async () => (await c.haproxyServer('user', 'user-1')).status.startsWith('DOWN'), 10_000, 'HAProxy to mark user-1 DOWN');

  const replayed = await c.debit(c.front('user'), body);
  expect({ status: replayed.status, body: replayed.json() }).toEqual({
    status: 200,
    body: { accountId: account.id, productId: 1, credits: STARTING - UNITS },
  });
  expect(Object.fromEntries(await ledgerByRequest(c.pool, account.id))).toEqual({ [requestId]: [-UNITS] });
  expect((await c.balance(c.front('user'), account.apiKey)).json()).toEqual({
    data: [{ product_id: 1, product: { id: 1, name: 'WHOIS API' }, credits: STARTING - UNITS }],
  });

  await replaceUserOne(c, {});
}
