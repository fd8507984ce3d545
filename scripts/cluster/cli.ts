/**
 * `pnpm cluster up|down|status [--base-port N] [--dir PATH] [--smtp-url URL]`: the local cluster
 * (docs/cluster.md). State goes to --dir, else $CLUSTER_DIR, else .cluster/ at the repository
 * root; ports start at --base-port, else $CLUSTER_BASE_PORT, else 25000.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runMain } from '@platform/runtime';
import { clusterDown, type ClusterState, clusterStatus, clusterUp, DEFAULT_BASE_PORT, defaultStateDir } from '@platform/testing/cluster';

function printState(state: ClusterState): void {
  console.log(`state folder  ${state.dir} (logs in logs/)`);
  console.log('\nURLs');
  for (const [name, url] of Object.entries(state.urls)) console.log(`  ${name.padEnd(16)}${url}`);
  console.log('\nEnvironment of every service replica (plus HOST and its own *_PORT)');
  for (const [name, value] of Object.entries(state.env)) console.log(`  ${name}=${value}`);
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { 'base-port': { type: 'string' }, dir: { type: 'string' }, 'smtp-url': { type: 'string' } },
  });
  const command = positionals[0];
  const dir = values.dir ?? defaultStateDir();
  if (command === 'up') {
    const basePort = Number(values['base-port'] ?? process.env.CLUSTER_BASE_PORT ?? DEFAULT_BASE_PORT);
    if (!Number.isInteger(basePort) || basePort < 1024 || basePort > 65_000) throw new Error(`bad base port ${basePort}`);
    const started = Date.now();
    const state = await clusterUp({ dir, basePort, smtpUrl: values['smtp-url'], log: (line) => console.log(line) });
    console.log(`\ncluster up in ${Math.round((Date.now() - started) / 1000)} s\n`);
    printState(state);
    return;
  }
  if (command === 'down') {
    console.log((await clusterDown({ dir })) ? `stopped the cluster of ${dir}` : `no cluster in ${dir}`);
    return;
  }
  if (command === 'status') {
    const status = await clusterStatus(dir);
    if (!status) {
      console.log(`no cluster in ${dir}`);
      process.exitCode = 1;
      return;
    }
    // What a failed `up` leaves: its state and logs, every process gone.
    if (!status.processes.some((entry) => entry.alive)) {
      console.log(
        `no cluster running in ${dir}: none of its processes runs (logs in ${path.join(dir, 'logs')}; \`pnpm cluster down\` clears it)`,
      );
      process.exitCode = 1;
      return;
    }
    for (const entry of status.processes)
      console.log(
        `  ${entry.name.padEnd(18)}pid ${String(entry.pid).padEnd(8)}${entry.port ? `port ${entry.port}  ` : ''}${entry.alive ? 'running' : 'DEAD'}`,
      );
    console.log(`\nPostgres primary: ${status.postgresPrimary === undefined ? 'none' : `patroni-${status.postgresPrimary}`}\n`);
    printState(status.state);
    if (status.processes.some((entry) => !entry.alive)) process.exitCode = 1;
    return;
  }
  throw new Error('usage: pnpm cluster up|down|status [--base-port N] [--dir PATH] [--smtp-url URL]');
}

runMain(main);
