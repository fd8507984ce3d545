import { declaredRoutes, serviceDocuments } from '@platform/kernel';
import { userRouteTable } from './routes';
import { securitySchemes } from './routes/schemas';

/** Every route the user service declares, in the document's order: its route table's (each is mounted from its declaration). */
export const userRoutes = declaredRoutes(userRouteTable);

/**
 * OpenAPI 3.1 descriptions of the user service, generated from its route declarations: `openapi`
 * its public endpoints (served at /openapi.json), `adminOpenapi` its admin and internal APIs
 * (served at /admin/v1/openapi.json to an admin token).
 */
export const { openapi, adminOpenapi } = serviceDocuments({
  info: { title: 'User service', version: '1.0.0', description: 'Accounts, API keys, credit balances, notification settings.' },
  routes: userRoutes,
  securitySchemes,
  adminScheme: 'admin',
});
