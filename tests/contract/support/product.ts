/**
 * A product of the domain-registration-lookup family (CONTRACT §4.2), in-process, on the
 * platform's user service: the credential-and-credits middleware a product mounts, with a stub
 * lookup, its log lines kept for the tests that read them.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from '@platform/kernel';
import { Health } from '@platform/runtime';
import { createProductGateway } from '@platform/product-gateway';
import { captureLogs } from '@platform/testing';
import { SERVICE_JWT_SECRET } from './oracles';

export const PRODUCT_PATH = '/whoisserver/WhoisService';

export interface RunningProduct {
  url: string;
  logLines(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Product 1 (`product-1`), debiting through the user service at `userUrl`. */
export async function startProduct(userUrl: string): Promise<RunningProduct> {
  const logs = captureLogs('product-1');
  const http = createHttpApp({ service: 'product-1', logger: logs.logger, health: new Health({}), openapi: {}, envelope: 'errorMessage' });
  const gateway = createProductGateway({ userUrl, serviceJwtSecret: SERVICE_JWT_SECRET, productId: 1 });
  http.app.use(gateway.routes(PRODUCT_PATH, (accepted) => ({ WhoisRecord: { domainName: accepted.domainName } })));
  const server: Server = http.finish().listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logLines: () => logs.lines(),
    async stop() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
