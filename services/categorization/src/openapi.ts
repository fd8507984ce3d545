import { declaredRoutes, openApiDocument } from '@platform/kernel';
import { categorizationRouteTable } from './routes';

/** Every route the categorization service declares, in the document's order: its route table's (each is mounted from its declaration). */
export const categorizationRoutes = declaredRoutes(categorizationRouteTable);

/** OpenAPI 3.1 description of the categorization service's endpoints (served at /openapi.json), generated from its route declarations. */
export const openapi = openApiDocument({
  info: {
    title: 'Categorization service',
    version: '2.0.0',
    description:
      'Website categories: the IAB Tech Lab Content Taxonomy 2.2 (CC BY 3.0, © IAB Technology Laboratory, Inc.) plus custom categories.',
  },
  routes: categorizationRoutes,
  securitySchemes: {
    adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN or an ADMIN_TOKENS entry (role support: GET only)' },
  },
});
