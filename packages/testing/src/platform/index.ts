/**
 * One way to start the platform in a test (`@platform/testing/platform`):
 * - `startPlatform({ mode: 'real', name, services, env, … })`: the services in this process on the
 *   real Postgres, Redis and RabbitMQ, on a private database, a key prefix and topology of the
 *   test's own (real.ts);
 * - `startPlatform({ mode: 'embedded', env })`: `pnpm start` as a process of its own, embedding
 *   what its variables leave unset (processes.ts);
 * - one service as its own process (`startServiceOf`), to kill it or pause it at a step.
 * The local cluster (HAProxy, replicas, Patroni; mode "cluster") is scripts/cluster's, started
 * for a test file by `useCluster` in tests/cluster/support.ts (`pnpm test:cluster`).
 */
import { startEmbeddedPlatform, type EmbeddedPlatform } from './processes';
import { startRealPlatform, type Platform, type RealPlatformOptions } from './real';

export { EVERY_SERVICE, type Platform, type PlatformService, type RealPlatformOptions } from './real';
export { platformEnv, startPlatformResources, type PlatformResources, type PlatformResourcesOptions } from './resources';
export { pausedAt, platformUrl, REPOSITORY_ROOT, startServiceOf, type EmbeddedPlatform, type ServiceProcessOptions } from './processes';
export { startChildProcess, type ChildProcessHandle, type ChildProcessOptions } from './child';

/** `env`: exactly the variables of `pnpm start` (PATH is added); `timeoutMs`: how long it may take to print its URLs (default 90 s). */
interface EmbeddedOptions {
  mode: 'embedded';
  env: Record<string, string>;
  timeoutMs?: number;
}

export function startPlatform(options: RealPlatformOptions & { mode?: 'real' }): Promise<Platform>;
export function startPlatform(options: EmbeddedOptions): Promise<EmbeddedPlatform>;
export function startPlatform(options: (RealPlatformOptions & { mode?: 'real' }) | EmbeddedOptions): Promise<Platform | EmbeddedPlatform> {
  return options.mode === 'embedded' ? startEmbeddedPlatform(options.env, options.timeoutMs) : startRealPlatform(options);
}
