/**
 * One HAProxy for the local cluster: a TCP front of the Postgres primary (Patroni's REST check)
 * and a round-robin HTTP front per service, with no stickiness.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDetached } from './processes';
import { HTTP_SERVICES, type ClusterPorts, type ClusterProcess } from './state';

function postgresSection(ports: ClusterPorts): string[] {
  return [
    'listen postgres-primary',
    `  bind 127.0.0.1:${ports.postgresPrimary}`,
    '  mode tcp',
    '  timeout client 1h',
    '  timeout server 1h',
    // Only the node whose Patroni answers /primary with 200 takes connections; when it changes,
    // the old primary's sessions are cut so that no client keeps writing to a demoted node.
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    '  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions',
    ...ports.postgres.map((node, index) => `  server pg${index + 1} 127.0.0.1:${node.postgres} check port ${node.rest}`),
  ];
}

/** A round-robin HTTP front of `service` on `front`, over its replicas' ports (servers `<service>-<n>`). */
export function serviceSection(service: string, front: number, replicas: readonly number[]): string[] {
  return [
    `listen ${service}`,
    `  bind 127.0.0.1:${front}`,
    '  mode http',
    '  balance roundrobin',
    '  option forwardfor',
    // Liveness, not readiness: a replica whose Postgres is switching answers its own 503.
    '  option httpchk GET /health/live',
    '  http-check expect status 200',
    // A request that reached a replica that died (connection refused or reset before any answer)
    // is sent again, to another replica (redispatch). Reads are idempotent; debits carry a
    // requestId, so a replayed debit is answered from the first one's record.
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response response-timeout',
    '  default-server inter 500ms fall 1 rise 2',
    ...replicas.map((port, index) => `  server ${service}-${index + 1} 127.0.0.1:${port} check`),
  ];
}

/** The global and default sections, with extra `global` lines (a runtime API socket). */
export function haproxyDefaults(global: string[] = []): string[] {
  return [
    'global',
    '  maxconn 4000',
    ...global,
    'defaults',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 30s',
    '  timeout check 2s',
  ];
}

export function haproxyConfig(ports: ClusterPorts): string {
  return [
    ...haproxyDefaults(),
    ...postgresSection(ports),
    ...HTTP_SERVICES.flatMap((service) => serviceSection(service, ports.front[service], ports.replicas[service])),
    'listen stats',
    `  bind 127.0.0.1:${ports.haproxyStats}`,
    '  mode http',
    '  stats enable',
    '  stats uri /',
    '',
  ].join('\n');
}

export function startHaproxy(dir: string, ports: ClusterPorts, logDir: string): ClusterProcess {
  const config = path.join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(ports));
  // -db: stay in the foreground (no daemon), so the pid is HAProxy's own.
  const pid = startDetached({ name: 'haproxy', command: 'haproxy', args: ['-db', '-f', config], logDir });
  return { name: 'haproxy', component: 'haproxy', pid, port: ports.postgresPrimary };
}
