/**
 * Mode "cluster": the local cluster (`@platform/testing/cluster`, docs/cluster.md) in a state
 * folder of its own, on a block of ports found free; the services reached through HAProxy's fronts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PlatformHandle } from './handle';
import { clusterDown, clusterUp, HTTP_SERVICES, type ClusterState, type HttpService, type UpOptions } from '../cluster';

export interface ClusterPlatformOptions {
  /** The state folder (logs, data); default a fresh one in the system's temporary folder. */
  dir?: string;
  /** Where the notifiers send e-mail; default the cluster's own mail catcher (`<dir>/mail/*.eml`). */
  smtpUrl?: string;
  /** Extra variables for every service replica (e.g. faster outbox polling). */
  serviceEnv?: Record<string, string>;
  /** First port of the fixed layout; default a block found free. */
  basePort?: number;
  /** Keeps the state folder once stopped or failed to start; default CLUSTER_KEEP_FILES=1. */
  keepFiles?: boolean;
  log?: UpOptions['log'];
}

export interface ClusterPlatform extends PlatformHandle {
  state: ClusterState;
  /** HAProxy's front of each HTTP service. */
  urls: Record<HttpService, string>;
  /** Stops every process of the cluster and removes its state folder (unless `keepFiles`). */
  stop(): Promise<void>;
}

export async function startClusterPlatform(options: ClusterPlatformOptions): Promise<ClusterPlatform> {
  const dir = options.dir ?? mkdtempSync(path.join(os.tmpdir(), 'local-cluster-test-'));
  const keepFiles = options.keepFiles ?? process.env.CLUSTER_KEEP_FILES === '1';
  let state: ClusterState;
  try {
    state = await clusterUp({
      dir,
      smtpUrl: options.smtpUrl,
      serviceEnv: options.serviceEnv,
      basePort: options.basePort,
      log: options.log,
    });
  } catch (error) {
    // clusterUp stopped what it started and kept its files, for the logs.
    if (!keepFiles) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const urls = Object.fromEntries(HTTP_SERVICES.map((service) => [service, `http://127.0.0.1:${state.ports.front[service]}`]));
  return {
    state,
    urls: urls as Record<HttpService, string>,
    async stop() {
      await clusterDown({ dir, keepFiles });
    },
  };
}
