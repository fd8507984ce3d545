/** The auth service's route declarations (CONTRACT §4.1): each is mounted from here and documented in /openapi.json. */
import { NUMERIC } from '@platform/wire';
import { CodeMessages, declareRoute, OAuthError, oauthEdge, publicEdge } from '@platform/kernel';
import { z } from 'zod';

export const securitySchemes = {
  apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'Base64 (standard or URL-safe) of the API key, or the raw key' },
  clientBasic: { type: 'http', scheme: 'basic', description: 'client_id = account id, client_secret = API key' },
  serviceBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Service JWT (HS256, audience auth) or the admin token',
  },
};

const LIFETIMES = [1800, 3600, 7200, 10800];
const tooMany = { description: 'Rate limited (Retry-After header)', body: CodeMessages };
/** An error of the token endpoint: the seed flow answers code/messages (JSON or XML), the RFC 6749 grants an OAuth error (JSON). */
const grantError = (description: string) => ({
  description: `${description}. Seed flow: code/messages; RFC 6749 flow: OAuth error (JSON)`,
  body: z.union([CodeMessages, OAuthError]),
  xmlBody: CodeMessages,
});

/**
 * `POST /oauth/token`: one path, two grants (`grants/`), each answering under its own edge; the
 * declaration's edge is the seed's (the default grant), and its body names both grants' forms.
 * The parameters are the grant's to read (`TokenGrant.lifetime`), after the client's credential.
 */
export const tokenRoute = declareRoute({
  cors: true,
  methods: ['post'],
  paths: ['/oauth/token'],
  edge: publicEdge,
  summary: 'Issue an access token',
  description:
    'A form body with grant_type selects RFC 6749 client credentials (JSON, RFC 6749 §5.2 errors); anything else is the seed flow (code/messages envelope, JSON or XML).',
  security: [{ apiKeyBearer: [] }, { clientBasic: [] }],
  body: {
    content: {
      'application/json': z.object({
        grantType: z.literal('access_token'),
        expiresIn: z
          .union([z.number().int().openapi({ enum: LIFETIMES }), z.string().regex(NUMERIC)])
          .optional()
          .openapi({ default: 3600 }),
        outputFormat: z.enum(['JSON', 'XML']).optional(),
      }),
      'application/x-www-form-urlencoded': z.object({
        grant_type: z.literal('client_credentials'),
        expires_in: z.enum(['1800', '3600', '7200', '10800']).optional(),
        client_id: z.string().optional(),
        client_secret: z.string().optional(),
      }),
    },
  },
  responses: {
    200: {
      description: 'Token issued (Cache-Control: no-store)',
      body: z.union([
        z.object({ accessToken: z.string(), expiresIn: z.number().int() }),
        z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int() }),
      ]),
      // The seed flow's answer in XML (`<xml><accessToken>…</accessToken><expiresIn>…</expiresIn></xml>`); the RFC flow is JSON only.
      xmlBody: z.object({ accessToken: z.string(), expiresIn: z.number().int() }).openapi({ xml: { name: 'xml' } }),
    },
    400: grantError('Malformed body; RFC flow: invalid_request, unsupported_grant_type'),
    401: grantError('Bad credential or no credits (WWW-Authenticate when a scheme was sent)'),
    413: 'Body over 16 KiB',
    422: 'Invalid grantType, expiresIn or outputFormat (seed flow)',
    429: grantError('Rate limited (Retry-After header)'),
    503: grantError('Redis or Postgres unavailable (Retry-After)'),
  },
});

const tokenForm = {
  required: true,
  content: { 'application/x-www-form-urlencoded': z.object({ token: z.string(), token_type_hint: z.string().optional() }) },
};

export const introspectRoute = declareRoute({
  cors: true,
  methods: ['post'],
  paths: ['/oauth/introspect'],
  edge: oauthEdge,
  summary: 'RFC 7662 token introspection',
  security: [{ serviceBearer: [] }, { clientBasic: [] }],
  body: tokenForm,
  responses: {
    200: {
      description: '{"active": false} for unknown, expired, revoked or another account\'s token',
      body: z.object({
        active: z.boolean(),
        client_id: z.string().optional(),
        sub: z.string().optional(),
        exp: z.number().int().optional(),
        iat: z.number().int().optional(),
        token_type: z.literal('Bearer').optional(),
      }),
    },
    400: 'token missing',
    401: 'Caller not authenticated',
    429: tooMany,
  },
});

export const revokeRoute = declareRoute({
  cors: true,
  methods: ['post'],
  paths: ['/oauth/revoke'],
  edge: oauthEdge,
  summary: "RFC 7009 token revocation (only the caller's own tokens)",
  description: "The account authenticates with its key (Basic, body or the seed's Bearer) or with one of its live access tokens as Bearer.",
  security: [{ clientBasic: [] }, { apiKeyBearer: [] }],
  body: tokenForm,
  responses: {
    200: { description: "Revoked, or there was nothing of the caller's to revoke" },
    400: 'token missing',
    401: 'Account not authenticated',
    429: tooMany,
  },
});

/** What the metadata names (RFC 8414 §2); every URL is under AUTH_URL. */
const ServerMetadata = z
  .object({
    issuer: z.string().url(),
    token_endpoint: z.string().url(),
    introspection_endpoint: z.string().url(),
    revocation_endpoint: z.string().url(),
    grant_types_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    introspection_endpoint_auth_methods_supported: z.array(z.string()),
    service_documentation: z.string().url(),
  })
  .openapi('AuthorizationServerMetadata');

export const metadataRoute = declareRoute({
  cors: true,
  methods: ['get'],
  paths: ['/.well-known/oauth-authorization-server'],
  // The app's default edge, as before it was declared (the answer itself is always JSON).
  edge: publicEdge,
  summary: 'RFC 8414 authorization server metadata',
  responses: { 200: { description: 'Metadata', body: ServerMetadata, jsonOnly: true } },
});
