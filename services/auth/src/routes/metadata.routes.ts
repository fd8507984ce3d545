import { mountRoute, routeGroup } from '@platform/kernel';
import { metadataRoute } from './declarations';

/**
 * RFC 8414 authorization server metadata, naming the three endpoints. The issuer is AUTH_URL,
 * never the request's Host: the answer is cacheable, and a Host-derived issuer would let one
 * forged request poison a cache with another server's endpoints.
 */
export const metadataRoutes = routeGroup<{ publicUrl: string }>({
  routes: [metadataRoute],
  mount: (router, options) =>
    mountRoute(router, metadataRoute, (_req, res) => {
      const issuer = options.publicUrl;
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.json({
        issuer,
        token_endpoint: `${issuer}/oauth/token`,
        introspection_endpoint: `${issuer}/oauth/introspect`,
        revocation_endpoint: `${issuer}/oauth/revoke`,
        grant_types_supported: ['client_credentials'],
        // REQUIRED (RFC 8414 §2), and Authlib refuses an empty list. "none" (the registered type
        // whose authorization response carries no credential) claims no flow: there is no
        // authorization endpoint, and client_credentials has no response type (RFC 7591 §2.1).
        response_types_supported: ['none'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'bearer'],
        service_documentation: `${issuer}/openapi.json`,
      });
    }),
});
