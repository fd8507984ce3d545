import { openApiDocument } from '@platform/kernel';
import { introspectRoute, metadataRoute, revokeRoute, securitySchemes, tokenRoute } from './routes/declarations';

/** Every route the auth service declares, in the document's order (each is mounted from its declaration). */
export const authRoutes = [tokenRoute, introspectRoute, revokeRoute, metadataRoute];

/** OpenAPI 3.1 description of the auth service's public endpoints (CONTRACT §4.1), generated from its route declarations. */
export const openapi = openApiDocument({
  info: { title: 'Auth service', version: '1.0.0', description: 'Access tokens from API keys: the seed flow and standard OAuth 2.0.' },
  routes: authRoutes,
  securitySchemes,
});
