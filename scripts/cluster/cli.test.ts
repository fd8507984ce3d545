/**
 * `pnpm cluster` as an operator meets it: the command line run as its own process, on state
 * folders of the test's own. Nothing here starts a cluster.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sourceNodeArgs } from '@platform/testing';
import { allocatePorts, writeState } from '@platform/testing/cluster';

const ROOT = path.resolve(__dirname, '../..');

function cluster(args: string[], env: NodeJS.ProcessEnv = process.env): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [...sourceNodeArgs, 'scripts/cluster/cli.ts', ...args], { cwd: ROOT, env, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('pnpm cluster', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cluster-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when status finds no state, then it says there is no cluster and exits 1', () => {
    expect(cluster(['status', '--dir', dir])).toEqual({ status: 1, stdout: `no cluster in ${dir}\n`, stderr: '' });
  });

  it('when status finds the state of a failed up (every process gone), then it says plainly that nothing runs, with no empty sections', async () => {
    // A pid that existed and has exited: what a process of a failed `up` left in the state file.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeState({
      dir,
      startedAt: new Date().toISOString(),
      ports: await allocatePorts(undefined),
      processes: [
        { name: 'rabbitmq-1', component: 'rabbitmq', pid: gone },
        { name: 'redis', component: 'redis', pid: gone },
      ],
      urls: {},
      env: {},
      postgresDataDirs: [],
      rabbitmqNodes: [],
      rabbitmqHome: path.join(dir, 'rabbitmq-home'),
    });
    expect(cluster(['status', '--dir', dir])).toEqual({
      status: 1,
      stdout: `no cluster running in ${dir}: none of its processes runs (logs in ${path.join(dir, 'logs')}; \`pnpm cluster down\` clears it)\n`,
      stderr: '',
    });
  });

  it('when up finds programs missing, then one line says what to install, and nothing was started', () => {
    const emptyPath = path.join(dir, 'bin');
    mkdirSync(emptyPath);
    const state = path.join(dir, 'state');
    const up = cluster(['up', '--dir', state], { ...process.env, PATH: emptyPath });
    expect(up.status).toBe(1);
    expect(up.stdout).toBe('');
    // The programs found by name are missing here; those at fixed paths depend on the machine.
    expect(up.stderr).toMatch(
      /^the local cluster needs programs that are not installed: apt-get install etcd-server patroni haproxy (\S+ )*redis-server redis-tools (\S+ )*postgresql-client (\S+ )*\(then pnpm cluster up again\)\n$/,
    );
    expect(existsSync(state)).toBe(false);
  });
});
