/**
 * RabbitMQ of the local cluster: three nodes of Debian's rabbitmq-server on one machine, each
 * with its own node name, AMQP and distribution ports and folders, joined into one cluster. They
 * share an Erlang cookie of their own (in `<dir>/rabbitmq-home/.erlang.cookie`, HOME for the
 * servers and for rabbitmqctl), so they never join the machine's own RabbitMQ; they register
 * with the machine's epmd under names unique to the cluster's ports.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { alive, portOpen, signalGroup, startDetached, tail, waitFor } from './processes';
import type { ClusterPorts, ClusterProcess } from './state';

const run = promisify(execFile);
export const RABBITMQ_BIN = '/usr/lib/rabbitmq/bin';

export interface RabbitNodes {
  home: string;
  nodes: string[];
}

export function rabbitNodeNames(ports: ClusterPorts): string[] {
  return ports.rabbitmq.map((node, index) => `lc${index + 1}-${node.amqp}@localhost`);
}

function nodeEnv(dir: string, home: string, ports: ClusterPorts, index: number, name: string): NodeJS.ProcessEnv {
  const node = ports.rabbitmq[index] as { amqp: number; dist: number };
  const base = path.join(dir, `rabbitmq-${index + 1}`);
  mkdirSync(path.join(base, 'log'), { recursive: true });
  const enabledPlugins = path.join(base, 'enabled_plugins');
  // No plugins: the management plugin would take the machine's port 15672.
  writeFileSync(enabledPlugins, '[].\n');
  const config = path.join(base, 'rabbitmq.conf');
  writeFileSync(config, 'loopback_users = none\n');
  return {
    HOME: home,
    RABBITMQ_NODENAME: name,
    RABBITMQ_USE_LONGNAME: 'false',
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(node.amqp),
    RABBITMQ_DIST_PORT: String(node.dist),
    RABBITMQ_MNESIA_BASE: path.join(base, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(base, 'log'),
    RABBITMQ_PID_FILE: path.join(base, 'rabbitmq.pid'),
    RABBITMQ_ENABLED_PLUGINS_FILE: enabledPlugins,
    RABBITMQ_CONFIG_FILE: config,
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(base, 'advanced.config'),
    RABBITMQ_CONF_ENV_FILE: path.join(base, 'rabbitmq-env.conf'),
  };
}

export function rabbitHome(dir: string): string {
  const home = path.join(dir, 'rabbitmq-home');
  mkdirSync(home, { recursive: true });
  const cookie = path.join(home, '.erlang.cookie');
  try {
    readFileSync(cookie);
  } catch {
    writeFileSync(cookie, randomBytes(24).toString('hex').toUpperCase(), { mode: 0o400 });
  }
  return home;
}

export function startRabbitNodes(dir: string, ports: ClusterPorts, logDir: string): { processes: ClusterProcess[]; nodes: RabbitNodes } {
  const home = rabbitHome(dir);
  const names = rabbitNodeNames(ports);
  const processes = names.map((_name, index) => startRabbitNode(dir, ports, logDir, index));
  return { processes, nodes: { home, nodes: names } };
}

/** Starts node `index` (0-based); started again after a kill, it rejoins the cluster from its own folder. */
export function startRabbitNode(dir: string, ports: ClusterPorts, logDir: string, index: number): ClusterProcess {
  const name = rabbitNodeNames(ports)[index] as string;
  const label = `rabbitmq-${index + 1}`;
  const env = nodeEnv(dir, rabbitHome(dir), ports, index, name);
  const pid = startDetached({ name: label, command: path.join(RABBITMQ_BIN, 'rabbitmq-server'), args: [], env, logDir });
  return { name: label, component: 'rabbitmq' as const, pid, port: ports.rabbitmq[index]?.amqp };
}

export async function rabbitmqctl(home: string, node: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const { stdout } = await run(path.join(RABBITMQ_BIN, 'rabbitmqctl'), ['-n', node, ...args], {
    env: { ...process.env, HOME: home },
    timeout: timeoutMs,
  });
  return stdout;
}

/** Waits for every node, then joins nodes 2 and 3 to node 1 (stop_app, join_cluster, start_app). */
export async function clusterRabbitNodes(ports: ClusterPorts, nodes: RabbitNodes, logDir: string): Promise<void> {
  await Promise.all(
    ports.rabbitmq.map((node, index) =>
      waitFor(() => portOpen(node.amqp), 120_000, `RabbitMQ node ${index + 1}`).catch((error: Error) => {
        throw new Error(`${error.message}\n${tail(logDir, `rabbitmq-${index + 1}`)}`);
      }),
    ),
  );
  const [first, ...others] = nodes.nodes as [string, ...string[]];
  for (const node of others) {
    await rabbitmqctl(nodes.home, node, ['stop_app']);
    await rabbitmqctl(nodes.home, node, ['join_cluster', first]);
    await rabbitmqctl(nodes.home, node, ['start_app']);
  }
  await waitFor(
    async () => {
      const status = await rabbitmqctl(nodes.home, first, ['cluster_status', '--formatter', 'json']);
      const running = (JSON.parse(status) as { running_nodes?: string[] }).running_nodes ?? [];
      return nodes.nodes.every((node) => running.includes(node));
    },
    60_000,
    'the RabbitMQ nodes to run as one cluster',
  );
}

/** The Erlang VM's pid of node `index` (the server writes it to its pid file once it runs). */
export function rabbitPid(dir: string, index: number): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dir, `rabbitmq-${index + 1}`, 'rabbitmq.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** How many client connections each node holds, by the node's AMQP port (asked of `node`, which must be running). */
export async function connectionsByPort(home: string, node: string): Promise<Record<number, number>> {
  const listed = JSON.parse(await rabbitmqctl(home, node, ['list_connections', 'port', '--formatter', 'json'])) as Array<{ port: number }>;
  const counts: Record<number, number> = {};
  for (const { port } of listed) counts[port] = (counts[port] ?? 0) + 1;
  return counts;
}

/** Node `index` dies: SIGKILL to its Erlang VM and to the script that started it. */
export function killRabbitNode(dir: string, index: number, serverPid: number): number | undefined {
  const vm = rabbitPid(dir, index);
  if (vm !== undefined) process.kill(vm, 'SIGKILL');
  signalGroup(serverPid, 'SIGKILL');
  return vm;
}
