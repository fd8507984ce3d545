/**
 * CONTRACT §1: a request caught in a Redis Cluster failover answers within 5 s of its arrival.
 * The cluster runs with the largest cluster-node-timeout the docs allow (5 s), so its failover
 * takes longer than the answer budget. A master stops answering (SIGSTOP) with requests' commands
 * on it, unread; it is then SIGKILLed, so those commands fail with the connection. Only the
 * client's bounds (the command timeout, the retries: REDIS_CLUSTER_COMMAND_BUDGET_MS) keep them
 * from waiting for the replica's promotion, seconds later.
 */
import { execFileSync } from 'node:child_process';
import type request from 'supertest';
import { accessLayout, CLUSTER_NODE_TIMEOUT_MS, hashSecret } from '@platform/credentials';
import { eventually } from '@platform/testing';
import { newAccount, tokenOf, useClusterPlatform } from './platform';

const started = useClusterPlatform('redis_stall', 'cluster', 90_000, { nodeTimeoutMs: CLUSTER_NODE_TIMEOUT_MS });

interface Answer {
  what: string;
  status: number;
  retryAfter: boolean;
  ms: number;
  /** A refusal's X-Refusal-Reason, for the report of a failed wait. */
  reason?: string;
}

/** Bytes sent to the node's port and not read by it yet (the Recv-Q of its connections). */
const unread = (port: number): number =>
  execFileSync('ss', ['-Htn', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[0]), 0);

const replicationOffset = (info: unknown, field: string): number => Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(String(info))?.[1]);

test('when a master with commands on it stops and is then killed, then every request answers within 5 s: 200, or 503 with Retry-After', async () => {
  const { platform, calls } = started();
  const cluster = platform.cluster as NonNullable<typeof platform.cluster>;
  const layout = accessLayout(platform.prefix);
  const recordOf = (apiKey: string): string => layout.keyRecord(hashSecret(apiKey));
  const accounts = await Promise.all(Array.from({ length: 9 }, () => newAccount(calls)));
  const masters = await Promise.all(accounts.map((account) => cluster.masterOf(recordOf(account.apiKey))));
  const victim = masters[0] as (typeof masters)[number];
  const stalled = accounts.filter((_account, index) => masters[index] === victim);
  const tokens = await Promise.all(stalled.map((account) => tokenOf(calls, account.apiKey)));
  const pid = Number(/process_id:(\d+)/.exec(String(await cluster.readOn(victim, 'INFO', 'server')))?.[1]);

  const answers: Answer[] = [];
  const timed = async (what: string, call: request.Test): Promise<number> => {
    const sentAt = Date.now();
    // Well past the budget, so that a late answer is measured rather than cut off.
    const response = await call.timeout(20_000);
    answers.push({
      what,
      status: response.status,
      retryAfter: Number(response.headers['retry-after']) > 0,
      ms: Date.now() - sentAt,
      ...(response.headers['x-refusal-reason'] ? { reason: String(response.headers['x-refusal-reason']) } : {}),
    });
    return response.status;
  };
  const round = (): Promise<number[]> =>
    Promise.all(
      stalled.flatMap((account, index) => [
        timed('balance', calls.balance(tokens[index] as string)),
        timed('debit', calls.debit(account.apiKey, 1, 1)),
      ]),
    );

  // The replica holds every write the master made (the tokens too) before the master stops: the
  // failover loses nothing, so a refusal after it is the platform's, not the failover's.
  const replica = await cluster.replicaOf(victim);
  const masterOffset = replicationOffset(await cluster.readOn(victim, 'INFO', 'replication'), 'master_repl_offset');
  await eventually(
    async () =>
      replicationOffset(await cluster.readOn(replica, 'INFO', 'replication'), 'slave_repl_offset') >= masterOffset ? true : undefined,
    10_000,
    `the replica ${replica.address} at the master's offset ${masterOffset}`,
  );
  process.kill(pid, 'SIGSTOP');
  const caught = round();
  // The requests' commands reached the stopped master: sent, unread.
  await eventually(() => (unread(victim.port) > 0 ? true : undefined), 1500, 'commands waiting on the stopped master');
  await cluster.kill(victim);
  await caught;
  // Through the failover, until the replica serves the slots again (the first answers are 503s).
  await eventually(
    async () => ((await round()).every((status) => status === 200) ? true : undefined),
    60_000,
    'the slots served again',
  ).catch(async (error: Error) => {
    const last = answers.slice(-stalled.length * 2).map(({ what, status, reason }) => ({ what, status, reason }));
    const masters = (await cluster.masters()).map((node) => node.address);
    // What the store holds for each account now: its key record and how many tokens it lists (or
    // why it could not be read: the slots may still be unserved).
    const stored = await Promise.all(
      stalled.map(async ({ apiKey }) => {
        try {
          return {
            key: await platform.redis.hgetall(recordOf(apiKey)),
            tokens: await platform.redis.zcard(layout.keyTokens(hashSecret(apiKey))),
          };
        } catch (readError) {
          return { unread: (readError as Error).message };
        }
      }),
    );
    throw new Error(
      `${error.message}; the last round answered ${JSON.stringify(last)}; masters now: ${masters.join(', ')}; stored: ${JSON.stringify(stored)}`,
    );
  });

  const wrong = answers.filter((answer) => answer.ms >= 5000 || !(answer.status === 200 || (answer.status === 503 && answer.retryAfter)));
  expect({ wrong, caught: answers.slice(0, stalled.length * 2).every((answer) => answer.status === 503) }).toEqual({
    wrong: [],
    caught: true,
  });
}, 120_000);
