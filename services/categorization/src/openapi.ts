import { declaredRoutes, serviceDocuments } from '@platform/kernel';
import { categorizationRouteTable } from './routes';

/** Every route the categorization service declares, in the document's order: its route table's (each is mounted from its declaration). */
export const categorizationRoutes = declaredRoutes(categorizationRouteTable);

/**
 * OpenAPI 3.1 descriptions of the categorization service, generated from its route declarations:
 * `openapi` the category list (served at /openapi.json), `adminOpenapi` the admin API (served at
 * /admin/v1/openapi.json to an admin token).
 */
export const { openapi, adminOpenapi } = serviceDocuments({
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
  adminScheme: 'adminToken',
});
