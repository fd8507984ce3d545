import { declaredRoutes, openApiDocument } from '@platform/kernel';
import { authRouteTable } from './routes';
import { securitySchemes } from './routes/declarations';

/** Every route the auth service declares, in the document's order: its route table's (each is mounted from its declaration). */
export const authRoutes = declaredRoutes(authRouteTable);

/** OpenAPI 3.1 description of the auth service's public endpoints (CONTRACT §4.1), generated from its route declarations. */
export const openapi = openApiDocument({
  info: { title: 'Auth service', version: '1.0.0', description: 'Access tokens from API keys: the seed flow and standard OAuth 2.0.' },
  routes: authRoutes,
  securitySchemes,
});
