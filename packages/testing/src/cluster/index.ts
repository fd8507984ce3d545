/**
 * The local cluster (`@platform/testing/cluster`): Patroni Postgres, RabbitMQ nodes, Redis,
 * HAProxy and 2 replicas of each service as real processes on this machine (docs/cluster.md).
 * Started by `startPlatform({ mode: 'cluster' })` (@platform/testing/platform), `pnpm cluster`
 * (scripts/cluster/cli.ts) and the chaos run (scripts/chaos); the fault tests (tests/cluster) strike
 * its parts with what follows.
 */
export { clusterDown, clusterStatus, clusterUp, type UpOptions } from './cluster';
export { haproxyCommand, haproxyDefaults, haproxySocket, haproxyStat, runtimeApi, serviceSection, writeUnavailableFile } from './haproxy';
export { killPostgresNode, patroniRoles, postmasterPid, startClusterPgbouncer, startPatroniNode } from './postgres';
export { alive, httpStatus, portOpen, postgresUser, signalGroup, startDetached, stopProcess, waitFor } from './processes';
export { connectionsByPort, killRabbitNode, rabbitmqctl, rabbitPid, startRabbitNode } from './rabbitmq';
export { startRedisNode } from './redis';
export { migrate, restartReplica } from './services';
export {
  allocatePorts,
  DEFAULT_BASE_PORT,
  defaultStateDir,
  HTTP_SERVICES,
  writeState,
  type ClusterProcess,
  type ClusterState,
  type HttpService,
} from './state';
