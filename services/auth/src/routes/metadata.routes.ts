import { type IRouter, type Request } from 'express';

/** RFC 8414 authorization server metadata, naming the three endpoints. */
export function metadataRoutes(router: IRouter, options: { publicUrl: string | undefined }): void {
  const base = (req: Request): string => options.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  router.get('/.well-known/oauth-authorization-server', (req, res) => {
    const issuer = base(req);
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json({
      issuer,
      token_endpoint: `${issuer}/oauth/token`,
      introspection_endpoint: `${issuer}/oauth/introspect`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'bearer'],
      service_documentation: `${issuer}/openapi.json`,
    });
  });
}
