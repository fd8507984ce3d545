import { openApiDocument, operationsRoutes } from '@platform/kernel';

/** OpenAPI 3.1 of the notifier, generated from route declarations: it has no public API, only the kernel's operations endpoints (CONTRACT §8). */
export const openapi = openApiDocument({
  info: {
    title: 'Notifier',
    version: '0.1.0',
    description:
      'Consumes balance.changed events (queue notifier.balance-changed) and sends low- and zero-balance alert e-mails. HTTP serves operations endpoints only.',
  },
  routes: operationsRoutes,
});
