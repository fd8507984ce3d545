/**
 * One way to start the platform in a test (`@platform/testing/platform`). Every mode answers a
 * `PlatformHandle` (`urls` of the services it started, `stop()`), with its own extras:
 * - `startPlatform({ mode: 'real', name, services, env, serviceEnv, bus, logger, databaseUrl, keepKeys, seams })`:
 *   the services in this process on the real Postgres, Redis and RabbitMQ, on a private database
 *   (or the test's own), a key prefix and topology of the test's own; `url()`, `pool`,
 *   `account()`, `token()`, `another(service, env, given)` for one more instance (its URL;
 *   `anotherInstance`: the instance, to stop it first) (real.ts);
 * - `startPlatform({ mode: 'embedded', env })`: `pnpm start` as a process of its own, embedding
 *   what its variables leave unset; `output()`, `alive()`, `kill()`, `exitCode()` (processes.ts);
 * - `startPlatform({ mode: 'cluster', smtpUrl, serviceEnv, basePort, dir, … })`: the local cluster
 *   (HAProxy, 2 replicas of each service, Patroni Postgres, RabbitMQ nodes, Redis;
 *   `@platform/testing/cluster`) in a state folder of its own; its `state` (cluster.ts). The fault
 *   tests start it through `useCluster` (tests/cluster/support.ts, `pnpm test:cluster`), the chaos
 *   run (scripts/chaos/run.ts) directly;
 * - one service as its own process (`startServiceOf`), to kill it or pause it at a step.
 * Tests, scripts and benches call no service's `runXService` themselves: real.ts is where they run.
 */
import { startClusterPlatform, type ClusterPlatform, type ClusterPlatformOptions } from './cluster';
import { startEmbeddedPlatform, type EmbeddedPlatform } from './processes';
import { startRealPlatform, type Platform, type RealPlatformOptions } from './real';

export { EVERY_SERVICE, type Platform, type RealPlatformOptions, type WebhookSeams } from './real';
export type { PlatformHandle, PlatformService } from './handle';
export { platformEnv, startPlatformResources, type PlatformResources, type PlatformResourcesOptions } from './resources';
export { pausedAt, platformUrl, REPOSITORY_ROOT, startServiceOf, type EmbeddedPlatform, type ServiceProcessOptions } from './processes';
export { type ClusterPlatform, type ClusterPlatformOptions } from './cluster';
export { startChildProcess, type ChildProcessHandle, type ChildProcessOptions } from './child';

/** `env`: exactly the variables of `pnpm start` (PATH is added); `timeoutMs`: how long it may take to print its URLs (default 90 s). */
interface EmbeddedOptions {
  mode: 'embedded';
  env: Record<string, string>;
  timeoutMs?: number;
}

export function startPlatform(options: RealPlatformOptions & { mode?: 'real' }): Promise<Platform>;
export function startPlatform(options: EmbeddedOptions): Promise<EmbeddedPlatform>;
export function startPlatform(options: ClusterPlatformOptions & { mode: 'cluster' }): Promise<ClusterPlatform>;
export function startPlatform(
  options: (RealPlatformOptions & { mode?: 'real' }) | EmbeddedOptions | (ClusterPlatformOptions & { mode: 'cluster' }),
): Promise<Platform | EmbeddedPlatform | ClusterPlatform> {
  if (options.mode === 'embedded') return startEmbeddedPlatform(options.env, options.timeoutMs);
  if (options.mode === 'cluster') return startClusterPlatform(options);
  return startRealPlatform(options);
}
