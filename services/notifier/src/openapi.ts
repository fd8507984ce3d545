import { declaredRoutes, openApiDocument, operationsRoutes } from '@platform/kernel';
import { notifierRouteTable } from './routes';

/** Every route the notifier declares, in the document's order: its route table's (none: operations endpoints only). */
const notifierRoutes = declaredRoutes(notifierRouteTable);

/** OpenAPI 3.1 of the notifier, generated from route declarations: it has no public API, only the kernel's operations endpoints (CONTRACT §8). */
export const openapi = openApiDocument({
  info: {
    title: 'Notifier',
    version: '0.1.0',
    description:
      'Consumes balance.changed events (queue notifier.balance-changed) and sends low- and zero-balance alert e-mails. HTTP serves operations endpoints only.',
  },
  routes: [...operationsRoutes, ...notifierRoutes],
});
