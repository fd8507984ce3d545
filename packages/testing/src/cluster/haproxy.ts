/**
 * One HAProxy for the local cluster: a TCP front of the Postgres primary (Patroni's REST check)
 * and a round-robin HTTP front per service, with no stickiness.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
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
    // Only a connection that failed (a replica gone: refused) is tried again, on another replica
    // (redispatch): a request that reached a replica may have been applied there, and a key
    // rotation is not idempotent. A request caught in a replica that dies or stops answers 503
    // (the error files below), and the client decides.
    '  retries 2',
    '  option redispatch 1',
    '  retry-on conn-failure',
    '  option httpclose',
    // A stopped replica fails its check within 1.5 s and gets no new requests.
    '  timeout check 1s',
    '  default-server inter 500ms fall 1 rise 2',
    ...replicas.map((port, index) => `  server ${service}-${index + 1} 127.0.0.1:${port} check`),
  ];
}

const UNAVAILABLE_BODY = '{"code":503,"messages":"Service temporarily unavailable. Try your call again later."}';

/**
 * HAProxy's own answer for 502, 503 and 504 (a raw HTTP response): the contract's 503 (CONTRACT
 * §1, never another 5xx), so a replica that died mid-request, none up, or one that does not
 * answer within `timeout server` all answer as a service in a fault does. Written to `dir`.
 */
export function writeUnavailableFile(dir: string): string {
  const file = path.join(dir, 'unavailable.http');
  const head = [
    'HTTP/1.1 503 Service Unavailable',
    'Content-Type: application/json; charset=utf-8',
    'Retry-After: 1',
    'Cache-Control: no-store',
    'Connection: close',
    `Content-Length: ${Buffer.byteLength(UNAVAILABLE_BODY)}`,
  ];
  writeFileSync(file, `${head.join('\r\n')}\r\n\r\n${UNAVAILABLE_BODY}`);
  return file;
}

/**
 * The global and default sections, with extra `global` lines (a runtime API socket) and the
 * file of HAProxy's own 5xx answers (writeUnavailableFile).
 */
export function haproxyDefaults(unavailableFile: string, global: string[] = []): string[] {
  return [
    'global',
    '  maxconn 4000',
    ...global,
    'defaults',
    '  timeout connect 1s',
    '  timeout client 60s',
    // Under CONTRACT §1's 5 s: a replica that stops answering (SIGSTOP, a stalled event loop)
    // costs the requests it holds 4 s and a 503, not its whole pause. Every service answers
    // faster, its own faults included (docs/operations.md, Timeouts).
    '  timeout server 4s',
    '  timeout check 2s',
    ...[502, 503, 504].map((status) => `  errorfile ${status} ${unavailableFile}`),
  ];
}

/** The runtime API socket of the local cluster's HAProxy, in the cluster's folder `dir`. */
export const haproxySocket = (dir: string): string => path.join(dir, 'haproxy.sock');

/** A `stats socket` line for haproxyDefaults' `global`: the runtime API on `socket`, with admin rights. */
export const runtimeApi = (socket: string): string => `  stats socket ${socket} mode 600 level admin`;

/** One command to HAProxy's runtime API on `socket` (`show stat`, `disable health user/user-1`): its answer. */
export function haproxyCommand(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const connection = net.createConnection(socket, () => connection.write(`${line}\n`));
    connection.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    connection.on('end', () => resolve(answer));
    connection.on('error', reject);
  });
}

/**
 * One row of HAProxy's statistics (`show stat` on the runtime API on `socket`): the server
 * `server` of `backend`, or the backend itself (`BACKEND`); a column by its name (`status`,
 * `scur`, `wretr`, `wredis`).
 */
export async function haproxyStat(socket: string, backend: string, server: string): Promise<(column: string) => string> {
  const [header, ...rows] = (await haproxyCommand(socket, 'show stat')).split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const row = rows.map((line) => line.split(',')).find((cells) => cells[0] === backend && cells[1] === server);
  if (!row) throw new Error(`no server ${backend}/${server} in HAProxy's statistics`);
  return (column) => row[columns.indexOf(column)] ?? '';
}

export function haproxyConfig(dir: string, ports: ClusterPorts, unavailableFile: string): string {
  return [
    ...haproxyDefaults(unavailableFile, [runtimeApi(haproxySocket(dir))]),
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
  writeFileSync(config, haproxyConfig(dir, ports, writeUnavailableFile(dir)));
  // -db: stay in the foreground (no daemon), so the pid is HAProxy's own.
  const pid = startDetached({ name: 'haproxy', command: 'haproxy', args: ['-db', '-f', config], logDir });
  return { name: 'haproxy', component: 'haproxy', pid, port: ports.postgresPrimary };
}
