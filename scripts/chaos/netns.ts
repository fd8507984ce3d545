/**
 * `pnpm chaos` runs in a network namespace of its own (`ip netns`), with the whole local cluster
 * and the runner in it: the nemesis's iptables rules (links.ts) and the cluster's ports then
 * exist only in a namespace the run made, never on the machine's own network. The runner starts
 * itself again inside a fresh namespace, and afterwards kills what is left in it and deletes it.
 */
import { execFileSync, spawn } from 'node:child_process';

const NAMESPACE_ENV = 'CHAOS_NETNS';

/** The namespace this process runs in, when it is the chaos run's own. */
export const ownNamespace = (): string | undefined => process.env[NAMESPACE_ENV];

const ip = (...args: string[]): string => execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Every process left in the namespace (an epmd the RabbitMQ nodes started, a straggler): SIGKILLed. */
function emptyNamespace(name: string): void {
  for (let round = 0; round < 20; round += 1) {
    const pids = ip('netns', 'pids', name)
      .split('\n')
      .map(Number)
      .filter((pid) => pid > 0);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    execFileSync('sleep', ['0.2']);
  }
}

/**
 * Runs this same command (node, its flags, the script and its arguments) in a new namespace with
 * only a loopback, waits for it, cleans up and resolves its exit code.
 */
export async function runInOwnNamespace(): Promise<number> {
  const name = `chaos-${process.pid}`;
  try {
    ip('netns', 'add', name);
  } catch (error) {
    throw new Error(
      `pnpm chaos runs in a network namespace of its own (for its partitions): \`ip netns add\` failed ` +
        `(it needs root or CAP_NET_ADMIN): ${(error as Error).message.trim()}`,
    );
  }
  try {
    ip('-n', name, 'link', 'set', 'lo', 'up');
    const child = spawn('ip', ['netns', 'exec', name, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      stdio: 'inherit',
      env: { ...process.env, [NAMESPACE_ENV]: name },
    });
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    process.on('SIGINT', forward).on('SIGTERM', forward);
    const code = await new Promise<number>((resolve) => child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
    process.off('SIGINT', forward).off('SIGTERM', forward);
    return code;
  } finally {
    emptyNamespace(name);
    ip('netns', 'delete', name);
  }
}
