import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertPrerequisites, missingPackages, type Locations } from './prerequisites';

/** A machine of the test's own: empty folders where the programs would be. */
function machine(): { root: string; locations: Locations; install(file: string): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cluster-prereq-'));
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  return {
    root,
    locations: {
      path: bin,
      pgbouncer: path.join(root, 'sbin/pgbouncer'),
      rabbitmqBin: path.join(root, 'rabbitmq/bin'),
      postgresRoot: path.join(root, 'postgresql'),
    },
    install(file) {
      const at = path.join(root, file);
      mkdirSync(path.dirname(at), { recursive: true });
      writeFileSync(at, '#!/bin/sh\n');
      chmodSync(at, 0o755);
    },
  };
}

describe('the local cluster prerequisites', () => {
  const machines: string[] = [];
  const aMachine = () => {
    const made = machine();
    machines.push(made.root);
    return made;
  };
  afterAll(() => machines.forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('when nothing is installed, then one line names every Debian package to install', () => {
    const { locations } = aMachine();
    expect(missingPackages(locations)).toEqual([
      'etcd-server',
      'patroni',
      'haproxy',
      'pgbouncer',
      'redis-server',
      'redis-tools',
      'rabbitmq-server',
      'postgresql',
      'postgresql-client',
      'iproute2',
      'iptables',
    ]);
    expect(() => assertPrerequisites(locations)).toThrow(
      new Error(
        'the local cluster needs programs that are not installed: apt-get install etcd-server patroni haproxy pgbouncer redis-server redis-tools rabbitmq-server postgresql postgresql-client iproute2 iptables (then pnpm cluster up again)',
      ),
    );
  });

  it('when some are installed, then only the others are named; a file that is not executable does not count', () => {
    const { locations, install, root } = aMachine();
    [
      'bin/etcd',
      'bin/patroni',
      'bin/redis-server',
      'bin/redis-cli',
      'bin/psql',
      'bin/ip',
      'sbin/pgbouncer',
      'postgresql/15/bin/postgres',
    ].forEach(install);
    writeFileSync(path.join(root, 'bin/haproxy'), 'not a program');
    expect(missingPackages(locations)).toEqual(['haproxy', 'rabbitmq-server', 'iptables']);
  });

  it('when everything is installed, then nothing is missing and the check passes', () => {
    const { locations, install } = aMachine();
    [
      'bin/etcd',
      'bin/patroni',
      'bin/haproxy',
      'bin/redis-server',
      'bin/redis-cli',
      'bin/psql',
      'bin/ip',
      'bin/iptables',
      'sbin/pgbouncer',
      'rabbitmq/bin/rabbitmq-server',
      'postgresql/16/bin/postgres',
    ].forEach(install);
    expect(missingPackages(locations)).toEqual([]);
    expect(() => assertPrerequisites(locations)).not.toThrow();
  });
});
