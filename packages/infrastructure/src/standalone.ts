import type { RunningService } from '@platform/runtime';
import type { InfrastructureConfig } from './config';
import { openInfrastructure, type Adapters, type Infrastructure, type Need, type OpenInfrastructureOptions } from './infrastructure';

/** What `serveOn` opens: `given` may be passed through as it came (undefined: nothing given). */
export type ServeOnOptions<N extends Need> = Omit<OpenInfrastructureOptions<N>, 'given'> & { given?: Partial<Adapters> | undefined };

/**
 * A service over infrastructure of its own (`node dist/main.js`, tests): opens what its
 * configuration names, starts the service on those adapters, and its stop() closes them after the
 * service has drained. A failed start closes them.
 */
export async function serveOn<N extends Need, S extends RunningService>(
  config: InfrastructureConfig,
  { given, ...options }: ServeOnOptions<N>,
  start: (adapters: Infrastructure<N>) => Promise<S>,
): Promise<S> {
  const infrastructure = await openInfrastructure(config, { ...options, ...(given ? { given } : {}) });
  let service: S;
  try {
    service = await start(infrastructure);
  } catch (error) {
    await infrastructure.close();
    throw error;
  }
  const stopService = service.stop.bind(service);
  return Object.assign(service, {
    async stop() {
      try {
        await stopService();
      } finally {
        await infrastructure.close();
      }
    },
  });
}
