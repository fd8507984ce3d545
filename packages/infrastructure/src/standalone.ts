import type { RunningService } from '@platform/runtime';
import type { Infrastructure, Need } from './infrastructure';

/**
 * A service over infrastructure of its own (`node dist/main.js`, tests): starts it on the
 * adapters, and its stop() closes them after the service has drained. A failed start closes them.
 */
export async function serveOn<N extends Need, S extends RunningService>(
  infrastructure: Infrastructure<N>,
  start: (adapters: Infrastructure<N>) => Promise<S>,
): Promise<S> {
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
