/**
 * What `pnpm cluster up` runs, found before it starts anything: a missing program is one line
 * naming the Debian packages to install, not a `spawn etcd ENOENT` from a half-started cluster.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { PGBOUNCER_BIN } from '../pgbouncer';
import { findPostgresBinDir, POSTGRES_ROOT } from './postgres';
import { RABBITMQ_BIN } from './rabbitmq';

/** Where the programs are looked for: the defaults are this machine's; tests give their own. */
export interface Locations {
  /** The search path for the programs started by name (default: this process's PATH, as the spawns use). */
  path: string;
  pgbouncer: string;
  rabbitmqBin: string;
  postgresRoot: string;
}

const defaults = (): Locations => ({
  path: process.env.PATH ?? '',
  pgbouncer: PGBOUNCER_BIN,
  rabbitmqBin: RABBITMQ_BIN,
  postgresRoot: POSTGRES_ROOT,
});

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const onPath = (name: string, searchPath: string): boolean =>
  searchPath
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => executable(path.join(dir, name)));

/** Each program the cluster starts or calls, and the Debian package that installs it. */
function programs(at: Locations): Array<{ found: boolean; debianPackage: string }> {
  const named = (name: string, debianPackage: string) => ({ found: onPath(name, at.path), debianPackage });
  const postgresBin = findPostgresBinDir(at.postgresRoot);
  return [
    named('etcd', 'etcd-server'),
    named('patroni', 'patroni'),
    named('haproxy', 'haproxy'),
    { found: executable(at.pgbouncer), debianPackage: 'pgbouncer' },
    named('redis-server', 'redis-server'),
    named('redis-cli', 'redis-tools'),
    { found: executable(path.join(at.rabbitmqBin, 'rabbitmq-server')), debianPackage: 'rabbitmq-server' },
    { found: postgresBin !== undefined && executable(path.join(postgresBin, 'postgres')), debianPackage: 'postgresql' },
    named('psql', 'postgresql-client'),
    // The chaos run on the cluster (scripts/chaos): its network namespace and its partitions.
    named('ip', 'iproute2'),
    named('iptables', 'iptables'),
  ];
}

/** The Debian packages whose programs are missing, each once, in the order the cluster needs them. */
export function missingPackages(locations: Partial<Locations> = {}): string[] {
  const missing = programs({ ...defaults(), ...locations })
    .filter((program) => !program.found)
    .map((program) => program.debianPackage);
  return [...new Set(missing)];
}

/** Throws one line naming what to install when a program the cluster runs is missing. */
export function assertPrerequisites(locations: Partial<Locations> = {}): void {
  const missing = missingPackages(locations);
  if (missing.length > 0)
    throw new Error(
      `the local cluster needs programs that are not installed: apt-get install ${missing.join(' ')} (then pnpm cluster up again)`,
    );
}
