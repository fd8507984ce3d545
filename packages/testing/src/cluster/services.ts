/**
 * The platform's services on the local cluster, from the built code (`pnpm build`:
 * services/<name>/dist/main.js): auth, user and categorization as 2 replicas each behind HAProxy,
 * and 2 notifiers. Every replica gets the same generated secrets.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig as loadUserConfig } from '@platform/user/config';
import { httpStatus, startDetached, tail, waitFor } from './processes';
import { HTTP_SERVICES, type ClusterPorts, type ClusterProcess } from './state';
import { REPOSITORY_ROOT } from '../platform/processes';

const run = promisify(execFile);
const SERVICES = [...HTTP_SERVICES, 'notifier'] as const;
type Service = (typeof SERVICES)[number];
const PORT_VARIABLE: Record<Service, string> = {
  auth: 'AUTH_PORT',
  user: 'USER_PORT',
  categorization: 'CATEGORIZATION_PORT',
  notifier: 'NOTIFIER_PORT',
};

/** What the services of this checkout can be given (the scale-out engines land one by one). */
export interface Capabilities {
  /** REDIS_CLUSTER_NODES is read. */
  redisCluster: boolean;
  /** AMQP_URL may list several nodes. */
  amqpList: boolean;
  /** DATABASE_DIRECT_URL is read, so DATABASE_URL may point at pgbouncer in transaction mode. */
  pooler: boolean;
}

/** Asks the user service's own configuration what it accepts (it is the one that reads them all). */
export function capabilities(): Capabilities {
  const base = {
    DATABASE_URL: 'postgres://probe@127.0.0.1/probe',
    REDIS_URL: 'redis://127.0.0.1:1',
    AMQP_URL: 'amqp://127.0.0.1:1',
    ADMIN_TOKEN: 'x'.repeat(40),
    SERVICE_JWT_SECRET: 'y'.repeat(40),
  };
  const accepts = (environment: NodeJS.ProcessEnv): string | undefined => {
    try {
      return JSON.stringify(loadUserConfig(environment));
    } catch {
      return undefined;
    }
  };
  return {
    redisCluster: accepts({ ...base, REDIS_URL: undefined, REDIS_CLUSTER_NODES: '127.0.0.1:1,127.0.0.1:2' }) !== undefined,
    amqpList: accepts({ ...base, AMQP_URL: 'amqp://127.0.0.1:1,amqp://127.0.0.1:2' }) !== undefined,
    pooler: accepts({ ...base, DATABASE_DIRECT_URL: 'postgres://direct-probe@127.0.0.1/probe' })?.includes('direct-probe') ?? false,
  };
}

/** A random secret of `bytes` bytes, base64url (ADMIN_TOKEN must be at least 32 characters). */
const secret = (bytes: number): string => randomBytes(bytes).toString('base64url');

export function generatedSecrets(): Record<string, string> {
  return { ADMIN_TOKEN: secret(32), SERVICE_JWT_SECRET: secret(48) };
}

export function assertBuilt(): void {
  const missing = SERVICES.filter((service) => !existsSync(path.join(REPOSITORY_ROOT, 'services', service, 'dist/main.js')));
  if (missing.length > 0) throw new Error(`no built code for ${missing.join(', ')}: run \`pnpm build\` first`);
}

export async function createDatabase(port: number, database: string): Promise<void> {
  const { stdout } = await run('psql', [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
    '-Atc',
    `SELECT 1 FROM pg_database WHERE datname = '${database}'`,
  ]);
  if (stdout.trim() === '1') return;
  await run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', `CREATE DATABASE ${database}`]);
}

/** `pnpm migrate` against Postgres directly (through HAProxy, not pgbouncer: migrations take a session lock). */
export async function migrate(env: Record<string, string>, directUrl: string): Promise<void> {
  await run(process.execPath, ['--conditions=development', '--import', 'tsx', 'scripts/migrate.ts'], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, ...env, DATABASE_URL: directUrl },
  });
}

function replicaEnv(service: Service, port: number, env: Record<string, string>): Record<string, string> {
  return { ...env, HOST: '127.0.0.1', [PORT_VARIABLE[service]]: String(port) };
}

/** One replica (`<service>-<n>`) of a service's built entry point, detached, on `port`. */
function startReplica(service: Service, name: string, port: number, env: Record<string, string>, logDir: string): ClusterProcess {
  const pid = startDetached({
    name,
    command: process.execPath,
    args: [path.join('services', service, 'dist/main.js')],
    cwd: REPOSITORY_ROOT,
    env: replicaEnv(service, port, env),
    cleanEnv: true,
    logDir,
  });
  return { name, component: 'service', pid, port };
}

export function startServices(ports: ClusterPorts, env: Record<string, string>, logDir: string): ClusterProcess[] {
  return SERVICES.flatMap((service) =>
    ports.replicas[service].map((port, index) => startReplica(service, `${service}-${index + 1}`, port, env, logDir)),
  );
}

export async function waitForServices(processes: ClusterProcess[], logDir: string): Promise<void> {
  await Promise.all(
    processes.map((replica) =>
      waitFor(
        async () => (await httpStatus(`http://127.0.0.1:${replica.port}/health/ready`)) === 200,
        120_000,
        `${replica.name} to be ready`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${tail(logDir, replica.name)}`);
      }),
    ),
  );
}

/** Starts one replica again (after a fault test killed it), with the environment it had. */
export function restartReplica(ports: ClusterPorts, env: Record<string, string>, logDir: string, name: string): ClusterProcess {
  const [service, number] = name.split('-') as [Service, string];
  const port = ports.replicas[service][Number(number) - 1] as number;
  return startReplica(service, name, port, env, logDir);
}
