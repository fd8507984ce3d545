/**
 * A product of the domain-registration-lookup family as a product team builds it: the kernel's
 * HTTP app (ErrorMessage envelope) with @platform/product-gateway's routes at `path`, answering
 * `answer(call)` for each accepted call. Close the gateway after the test (it keeps connections).
 */
import type { Express } from 'express';
import { createHttpApp } from '@platform/kernel';
import { Health } from '@platform/runtime';
import { createProductGateway, type ProductGateway } from '@platform/product-gateway';
import { silentLogger } from '@platform/testing';

type GatewayOptions = Parameters<typeof createProductGateway>[0];
type Answer = Parameters<ProductGateway['routes']>[1];

export function productApp(options: GatewayOptions & { path: string; answer: Answer }): { app: Express; gateway: ProductGateway } {
  const { path, answer, ...gatewayOptions } = options;
  const http = createHttpApp({
    service: `product-${gatewayOptions.productId}`,
    logger: silentLogger(),
    health: new Health({}),
    openapi: {},
    envelope: 'errorMessage',
  });
  const gateway = createProductGateway(gatewayOptions);
  http.app.use(gateway.routes(path, answer));
  return { app: http.finish(), gateway };
}
