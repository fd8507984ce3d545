/**
 * `pnpm chaos [--seed N] [--minutes M] [--history FILE] [--fault SPEC]` (or `--check FILE`): a fault schedule with a
 * history checker on the local cluster (docs/resilience.md, "Chaos runs"). Starts a cluster of
 * its own, runs the mixed workload (workload.ts) while the nemesis (nemesis.ts) strikes as the
 * seed's schedule says, heals, settles unknown debits by replaying them, reads the ledger and the
 * alerts, writes the history (JSON lines) and checks it (checker/). Exits 1 on any anomaly.
 * `--fault` sets the user service's test-only TEST_FAULT (services/user/src/test-fault.ts).
 * It runs in a network namespace of its own (netns.ts), where the nemesis cuts and slows links
 * (links.ts), and ends with `pnpm admin verify-ledger` over every account.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPool } from '@platform/db';
import { silentLogger, startSmtpCapture, startWebhookReceiver } from '@platform/testing';
import { allocatePorts, DEFAULT_BASE_PORT, waitFor } from '@platform/testing/cluster';
import { startPlatform, type ClusterPlatform } from '@platform/testing/platform';
import { Api } from './api';
import { check, verdict } from './checker';
import { crossings } from './checker/alerts';
import { fromJsonLines, toJsonLines, type History } from './history';
import { healLinks, prepareLinks, rules, startDelayProxy } from './links';
import { runNemesis, wholeness } from './nemesis';
import { ownNamespace, runInOwnNamespace } from './netns';
import { verifyLedger } from './verify-ledger';
import { readAccounts, readAlerts } from './observe';
import { Recorder } from './recorder';
import { describeFault, schedule } from './schedule';
import { summarize } from './summary';
import { prepareWorkload, settleUnknownDebits } from './workload';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    minutes: { type: 'string', default: '3' },
    history: { type: 'string' },
    fault: { type: 'string' },
    check: { type: 'string' },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const minutes = Number(values.minutes);
if (!Number.isInteger(seed) || !(minutes > 0))
  throw new Error('usage: pnpm chaos [--seed N] [--minutes M] [--history FILE] [--fault SPEC]');

/** The delay proxy's port (links.ts), next to the cluster's fixed layout: the namespace is the run's own. */
const DELAY_PROXY_PORT = DEFAULT_BASE_PORT + 100;

async function main(): Promise<number> {
  if (values.check !== undefined) {
    // `--check FILE`: the checker alone, on a recorded history.
    const history = fromJsonLines(readFileSync(values.check, 'utf8'));
    const anomalies = check(history);
    console.log(`${summarize(history)}\n${verdict(history, anomalies)}`);
    return anomalies.length > 0 ? 1 : 0;
  }
  if (ownNamespace() === undefined) return runInOwnNamespace();
  await prepareLinks();
  const faults = schedule(seed, minutes);
  console.log(`chaos: seed ${seed}, ${minutes} min, ${faults.length} faults${values.fault ? `, test fault ${values.fault}` : ''}`);
  for (const fault of faults) console.log(`  ${describeFault(fault)}`);
  const smtp = await startSmtpCapture();
  const receiver = await startWebhookReceiver();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chaos-cluster-'));
  const ports = await allocatePorts(DEFAULT_BASE_PORT);
  const delayProxy = await startDelayProxy(DELAY_PROXY_PORT, ports.pgbouncer);
  let platform: ClusterPlatform | undefined;
  try {
    platform = await startPlatform({
      mode: 'cluster',
      dir,
      basePort: DEFAULT_BASE_PORT,
      smtpUrl: smtp.url,
      serviceEnv: {
        // The services reach pgbouncer through the nemesis's delay proxy.
        DATABASE_URL: `postgres://postgres@127.0.0.1:${delayProxy.port}/platform`,
        OUTBOX_POLL_MS: '200',
        WEBHOOK_ALLOW_INSECURE: 'true',
        NODE_EXTRA_CA_CERTS: receiver.caFile,
        // The stale-credential client fails often on purpose: no per-address limit in its way.
        AUTH_FAILURES_PER_IP: '1000000',
        ...(values.fault ? { TEST_FAULT: values.fault } : {}),
      },
      log: (line) => console.log(line),
    });
    const { state } = platform;
    const recorder = new Recorder();
    const targets = {
      auth: platform.urls.auth,
      user: platform.urls.user,
      adminToken: state.env.ADMIN_TOKEN as string,
      serviceJwtSecret: state.env.SERVICE_JWT_SECRET as string,
      webhookUrl: receiver.url,
    };
    const api = new Api(targets, recorder);
    const workload = await prepareWorkload(api);
    const startedAt = Date.now();
    const until = startedAt + minutes * 60_000;
    const [, nemesis] = await Promise.all([workload.run(until), runNemesis(state, faults, startedAt, until, delayProxy)]);
    if ((await rules()).length > 0) nemesis.failures.push('partition rules were left in force');
    const problems = await waitFor(async () => (await wholeness(state)).length === 0, 180_000, 'the cluster to be whole').then(
      () => [],
      async () => wholeness(state),
    );
    await settleUnknownDebits(api, recorder.ops);
    const ledger = await verifyLedger(state.env.DATABASE_DIRECT_URL as string);

    const pool = createPool({ connectionString: state.env.DATABASE_DIRECT_URL as string, logger: silentLogger(), max: 1 });
    const accounts = await readAccounts(pool, workload.accounts).finally(() => pool.end());
    const owed = accounts.reduce((sum, end) => sum + crossings(end).low + crossings(end).zero, 0);
    const alertsIn = (): number => readAlerts(smtp, receiver, workload.accounts).mails.length;
    const hooksIn = (): number => readAlerts(smtp, receiver, workload.accounts).webhooks.length;
    await waitFor(() => alertsIn() >= owed && hooksIn() >= owed, 120_000, 'the alerts owed').catch(() => undefined);
    await sentinel(new Api(targets, new Recorder()), smtp, receiver);

    const history: History = {
      seed,
      ops: [...recorder.ops].sort((a, b) => a.id - b.id),
      final: { accounts, ...readAlerts(smtp, receiver, workload.accounts) },
    };
    const file = values.history ?? path.join(os.tmpdir(), `chaos-${seed}.jsonl`);
    writeFileSync(file, toJsonLines(history));
    const anomalies = check(history);
    console.log(`\nhistory: ${file}\nnemesis:\n${nemesis.log.map((line) => `  ${line}`).join('\n')}`);
    for (const failure of [...nemesis.failures, ...problems]) console.log(`NEMESIS: ${failure}`);
    for (const failure of ledger) console.log(`LEDGER: ${failure}`);
    console.log(summarize(history));
    console.log(verdict(history, anomalies));
    return anomalies.length + nemesis.failures.length + problems.length + ledger.length > 0 ? 1 : 0;
  } finally {
    delayProxy.setDelay(0);
    await healLinks();
    // Keeps the state folder (logs, data) with CLUSTER_KEEP_FILES=1.
    await platform?.stop();
    await smtp.close();
    await receiver.close();
    await delayProxy.close();
  }
}

/**
 * A crossing made after everything else, awaited on both channels: alerts are sent in order
 * enough that, once it arrived, nothing owed earlier is still on its way to be sent twice.
 */
async function sentinel(api: Api, smtp: Parameters<typeof readAlerts>[0], receiver: Parameters<typeof readAlerts>[1]): Promise<void> {
  const account = await api.create(0, 11);
  if (!account) throw new Error('the sentinel account was not created');
  for (const requestId of ['sentinel-1', 'sentinel-2'])
    await api.debit(0, account.id, { key: 0 }, account.keys[0] as string, `${requestId}-${account.id}`);
  await waitFor(
    () => {
      const alerts = readAlerts(smtp, receiver, [account]);
      return alerts.mails.length > 0 && alerts.webhooks.length > 0;
    },
    60_000,
    "the sentinel's alerts",
  ).catch(() => console.log("the sentinel's alerts did not arrive within 60 s"));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
