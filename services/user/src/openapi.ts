import { declaredRoutes, openApiDocument } from '@platform/kernel';
import { userRouteTable } from './routes';
import { securitySchemes } from './routes/schemas';

/** Every route the user service declares, in the document's order: its route table's (each is mounted from its declaration). */
export const userRoutes = declaredRoutes(userRouteTable);

/** OpenAPI 3.1 description of the user service's public, admin and internal endpoints (served at /openapi.json), generated from its route declarations. */
export const openapi = openApiDocument({
  info: { title: 'User service', version: '1.0.0', description: 'Accounts, API keys, credit balances, notification settings.' },
  routes: userRoutes,
  securitySchemes,
});
