/**
 * `pnpm cluster up|down|status` as functions, shared by the command line (scripts/cluster/cli.ts),
 * `startPlatform({ mode: 'cluster' })` and the chaos run (scripts/chaos): everything a scaled-out deployment has, as real processes on
 * this machine. docs/cluster.md describes what runs where.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startHaproxy } from './haproxy';
import { alive, httpStatus, postgresUser, startDetached, stopProcess, waitFor } from './processes';
import { startEtcd, startClusterPgbouncer, startPatroni, stopPostmasters, waitForEtcd, waitForPatroni, patroniRoles } from './postgres';
import { clusterRabbitNodes, startRabbitNodes } from './rabbitmq';
import { formRedis, redisEnv, startRedis, type RedisMode } from './redis';
import { assertBuilt, capabilities, createDatabase, generatedSecrets, migrate, startServices, waitForServices } from './services';
import { allocatePorts, defaultStateDir, readState, writeState, HTTP_SERVICES, type ClusterProcess, type ClusterState } from './state';
import { postgresDataDir } from './postgres';
import { assertPrerequisites } from './prerequisites';
import { rabbitNodeNames } from './rabbitmq';
import { REPOSITORY_ROOT } from '../platform/processes';

export interface UpOptions {
  /** State folder (default $CLUSTER_DIR or .cluster/). */
  dir?: string;
  /** First port of the fixed layout; undefined: a block found free (allocatePorts). */
  basePort?: number | undefined;
  /** Where the notifiers send e-mail; default: a mail catcher writing `<dir>/mail/*.eml`. */
  smtpUrl?: string | undefined;
  /** Extra variables for every service replica (e.g. faster outbox polling in tests). */
  serviceEnv?: Record<string, string> | undefined;
  log?: ((line: string) => void) | undefined;
}

const DATABASE = 'platform';

function record(state: ClusterState, ...processes: ClusterProcess[]): void {
  state.processes.push(...processes);
  writeState(state);
}

async function startPostgres(state: ClusterState, logDir: string): Promise<void> {
  const { ports, dir } = state;
  const runAs = postgresUser();
  record(state, startEtcd(dir, ports, logDir));
  await waitForEtcd(ports, logDir);
  record(state, ...startPatroni(dir, ports, logDir, runAs), startHaproxy(dir, ports, logDir));
  await waitForPatroni(ports, logDir);
  await waitFor(() => createDatabase(ports.postgresPrimary, DATABASE).then(() => true), 30_000, 'the database through HAProxy');
  record(state, await startClusterPgbouncer(dir, ports, logDir));
}

function serviceEnvironment(
  state: ClusterState,
  smtpUrl: string,
  redisMode: RedisMode,
  extra: Record<string, string>,
): Record<string, string> {
  const { ports } = state;
  const can = capabilities();
  const direct = `postgres://postgres@127.0.0.1:${ports.postgresPrimary}/${DATABASE}`;
  const pooled = `postgres://postgres@127.0.0.1:${ports.pgbouncer}/${DATABASE}`;
  const amqp = ports.rabbitmq.map((node) => `amqp://guest:guest@127.0.0.1:${node.amqp}`);
  return {
    ...generatedSecrets(),
    // Through pgbouncer (transaction mode) only once the services keep no session state on
    // DATABASE_URL and take DATABASE_DIRECT_URL for the rest; before that (or with
    // CLUSTER_PGBOUNCER=0), HAProxy directly.
    DATABASE_URL: can.pooler && process.env.CLUSTER_PGBOUNCER !== '0' ? pooled : direct,
    DATABASE_DIRECT_URL: direct,
    ...redisEnv(ports, redisMode),
    AMQP_URL: can.amqpList ? amqp.join(',') : (amqp[0] as string),
    SMTP_URL: smtpUrl,
    AUTH_URL: `http://127.0.0.1:${ports.front.auth}`,
    USER_URL: `http://127.0.0.1:${ports.front.user}`,
    CATEGORIZATION_URL: `http://127.0.0.1:${ports.front.categorization}`,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

export async function clusterUp(options: UpOptions = {}): Promise<ClusterState> {
  const log = options.log ?? (() => undefined);
  assertPrerequisites();
  assertBuilt();
  const dir = path.resolve(options.dir ?? defaultStateDir());
  const previous = readState(dir);
  if (previous?.processes.some((entry) => alive(entry.pid)))
    throw new Error(`a cluster is running from ${dir}: \`pnpm cluster down\` first`);
  rmSync(dir, { recursive: true, force: true });
  const logDir = path.join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const ports = await allocatePorts(options.basePort);
  const redisMode: RedisMode = capabilities().redisCluster ? 'cluster' : 'single';
  const state: ClusterState = {
    dir,
    startedAt: new Date().toISOString(),
    ports,
    processes: [],
    urls: {},
    env: {},
    postgresDataDirs: ports.postgres.map((_, index) => postgresDataDir(dir, index)),
    rabbitmqNodes: rabbitNodeNames(ports),
    rabbitmqHome: path.join(dir, 'rabbitmq-home'),
  };
  writeState(state);
  try {
    const rabbit = startRabbitNodes(dir, ports, logDir);
    record(state, ...rabbit.processes, ...startRedis(dir, ports, logDir, redisMode));
    let smtpUrl = options.smtpUrl;
    if (smtpUrl === undefined) {
      const args = [
        '--conditions=development',
        '--import',
        'tsx',
        path.join(__dirname, 'smtp-sink.ts'),
        String(ports.smtp),
        path.join(dir, 'mail'),
      ];
      record(state, {
        name: 'smtp',
        component: 'smtp',
        port: ports.smtp,
        pid: startDetached({ name: 'smtp', command: process.execPath, args, cwd: REPOSITORY_ROOT, logDir }),
      });
      smtpUrl = `smtp://127.0.0.1:${ports.smtp}`;
    }
    log('starting etcd, Patroni (2 Postgres nodes), HAProxy, pgbouncer; 3 RabbitMQ nodes; Redis');
    await Promise.all([startPostgres(state, logDir), clusterRabbitNodes(ports, rabbit.nodes, logDir), formRedis(ports, logDir, redisMode)]);
    state.env = serviceEnvironment(state, smtpUrl, redisMode, options.serviceEnv ?? {});
    log('migrating, then starting the services (2 replicas each)');
    await migrate(state.env, state.env.DATABASE_DIRECT_URL as string);
    const replicas = startServices(ports, state.env, logDir);
    record(state, ...replicas);
    await waitForServices(replicas, logDir);
    await Promise.all(
      HTTP_SERVICES.map((service) =>
        waitFor(
          async () => (await httpStatus(`http://127.0.0.1:${ports.front[service]}/health/ready`)) === 200,
          30_000,
          `HAProxy's ${service} front`,
        ),
      ),
    );
    state.urls = {
      auth: state.env.AUTH_URL as string,
      user: state.env.USER_URL as string,
      categorization: state.env.CATEGORIZATION_URL as string,
      haproxyStats: `http://127.0.0.1:${ports.haproxyStats}/`,
      postgresPrimary: state.env.DATABASE_DIRECT_URL as string,
      pgbouncer: `postgres://postgres@127.0.0.1:${ports.pgbouncer}/${DATABASE}`,
      smtp: smtpUrl,
      etcd: `http://127.0.0.1:${ports.etcdClient}`,
      ...Object.fromEntries(ports.postgres.map((node, index) => [`patroni${index + 1}`, `http://127.0.0.1:${node.rest}`])),
    };
    writeState(state);
    return state;
  } catch (error) {
    await clusterDown({ dir, keepFiles: true });
    throw error;
  }
}

/** Stops every process `up` recorded (services first, data stores last) and removes the state folder unless `keepFiles`. */
export async function clusterDown(options: { dir?: string; keepFiles?: boolean } = {}): Promise<boolean> {
  const dir = path.resolve(options.dir ?? defaultStateDir());
  const state = readState(dir);
  if (!state) return false;
  const tiers: Array<Array<ClusterProcess['component']>> = [
    ['service', 'smtp'],
    ['haproxy', 'pgbouncer'],
    ['postgres'],
    ['etcd', 'rabbitmq', 'redis'],
  ];
  for (const tier of tiers) {
    await Promise.all(state.processes.filter((entry) => tier.includes(entry.component)).map((entry) => stopProcess(entry.pid, 20_000)));
    if (tier.includes('postgres')) {
      const pids = stopPostmasters(dir, state.ports.postgres.length, 'SIGQUIT');
      await Promise.all(pids.map((pid) => stopProcess(pid, 5000)));
    }
  }
  if (!options.keepFiles) rmSync(dir, { recursive: true, force: true });
  return true;
}

export interface ClusterStatus {
  state: ClusterState;
  processes: Array<ClusterProcess & { alive: boolean }>;
  /** Which Patroni node is primary (1-based), if any answers. */
  postgresPrimary: number | undefined;
}

export async function clusterStatus(dir = defaultStateDir()): Promise<ClusterStatus | undefined> {
  const state = readState(path.resolve(dir));
  if (!state) return undefined;
  const processes = state.processes.map((entry) => ({ ...entry, alive: alive(entry.pid) }));
  // Nothing runs (a failed `up`): no Patroni to ask.
  const primary = processes.some((entry) => entry.alive) ? (await patroniRoles(state.ports, 'primary')).indexOf(true) : -1;
  return { state, processes, postgresPrimary: primary < 0 ? undefined : primary + 1 };
}
