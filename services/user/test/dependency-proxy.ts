import { startTcpProxy, testServers, type TcpProxy } from '@platform/testing';
import { startHarness, testConfig, type Harness, type HarnessOptions } from './harness';

const REACHED_AS = {
  redis: { variable: 'REDIS_URL', url: () => testServers.redisUrl, port: 6379 },
  postgres: { variable: 'DATABASE_URL', url: () => testServers.databaseUrl, port: 5432 },
} as const;

/**
 * Runs `body` with a user service of its own that reaches `dependency` through a TCP proxy the
 * test cuts and restores; `more(proxy)` adds harness options (e.g. a store that cuts it). The
 * service, then the proxy, are stopped after `body`, whatever it did.
 */
export async function withDependencyProxy(
  dependency: keyof typeof REACHED_AS,
  body: (own: Harness, proxy: TcpProxy) => Promise<void>,
  more: (proxy: TcpProxy) => Omit<HarnessOptions, 'config'> = () => ({}),
): Promise<void> {
  const { variable, url, port } = REACHED_AS[dependency];
  const proxy = await startTcpProxy(Number(new URL(url()).port || port));
  try {
    const own = await startHarness({ ...more(proxy), config: testConfig({ [variable]: proxy.url(url()) }) });
    try {
      await body(own, proxy);
    } finally {
      await own.stop();
    }
  } finally {
    await proxy.close();
  }
}
