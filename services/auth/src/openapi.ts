import { codeMessagesSchema } from '@platform/kernel';

const oauthError = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
};
const json = (schema: unknown): Record<string, unknown> => ({ 'application/json': { schema } });
const jsonOrXml = (schema: unknown): Record<string, unknown> => ({ 'application/json': { schema }, 'application/xml': { schema } });
const tokenForm = {
  'application/x-www-form-urlencoded': {
    schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' }, token_type_hint: { type: 'string' } } },
  },
};
const tooMany = { description: 'Rate limited (Retry-After header)', content: jsonOrXml(codeMessagesSchema) };

/** OpenAPI 3.1 description of the auth service's public endpoints (CONTRACT §4.1). */
export const openapi: Record<string, unknown> = {
  openapi: '3.1.0',
  info: { title: 'Auth service', version: '1.0.0', description: 'Access tokens from API keys: the seed flow and standard OAuth 2.0.' },
  components: {
    securitySchemes: {
      apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'Base64 (standard or URL-safe) of the API key, or the raw key' },
      clientBasic: { type: 'http', scheme: 'basic', description: 'client_id = account id, client_secret = API key' },
      serviceBearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'Service JWT (HS256, audience auth) or the admin token',
      },
    },
  },
  paths: {
    '/oauth/token': {
      post: {
        summary: 'Issue an access token',
        description:
          'A form body with grant_type selects RFC 6749 client credentials (JSON, RFC 6749 §5.2 errors); anything else is the seed flow (code/messages envelope, JSON or XML).',
        security: [{ apiKeyBearer: [] }, { clientBasic: [] }],
        parameters: [{ name: 'outputFormat', in: 'query', schema: { type: 'string', enum: ['JSON', 'XML'] } }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['grantType'],
                properties: {
                  grantType: { type: 'string', enum: ['access_token'] },
                  expiresIn: {
                    oneOf: [
                      { type: 'integer', enum: [1800, 3600, 7200, 10800] },
                      { type: 'string', pattern: '^[0-9]+$' },
                    ],
                    default: 3600,
                  },
                  outputFormat: { type: 'string', enum: ['JSON', 'XML'] },
                },
              },
            },
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['grant_type'],
                properties: {
                  grant_type: { type: 'string', enum: ['client_credentials'] },
                  expires_in: { type: 'string', enum: ['1800', '3600', '7200', '10800'] },
                  client_id: { type: 'string' },
                  client_secret: { type: 'string' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Token issued (Cache-Control: no-store)',
            content: {
              'application/json': {
                schema: {
                  oneOf: [
                    {
                      type: 'object',
                      required: ['accessToken', 'expiresIn'],
                      properties: { accessToken: { type: 'string' }, expiresIn: { type: 'integer' } },
                    },
                    {
                      type: 'object',
                      required: ['access_token', 'token_type', 'expires_in'],
                      properties: { access_token: { type: 'string' }, token_type: { const: 'Bearer' }, expires_in: { type: 'integer' } },
                    },
                  ],
                },
              },
              'application/xml': { schema: { type: 'object' } },
            },
          },
          '400': { description: 'Malformed body; RFC flow: invalid_request, unsupported_grant_type', content: json(oauthError) },
          '401': {
            description: 'Bad credential or no credits (WWW-Authenticate when a scheme was sent)',
            content: jsonOrXml(codeMessagesSchema),
          },
          '413': { description: 'Body over 16 KiB', content: jsonOrXml(codeMessagesSchema) },
          '422': { description: 'Invalid grantType, expiresIn or outputFormat', content: jsonOrXml(codeMessagesSchema) },
          '429': tooMany,
          '503': { description: 'Redis or Postgres unavailable (Retry-After)', content: jsonOrXml(codeMessagesSchema) },
        },
      },
    },
    '/oauth/introspect': {
      post: {
        summary: 'RFC 7662 token introspection',
        security: [{ serviceBearer: [] }, { clientBasic: [] }],
        requestBody: { required: true, content: tokenForm },
        responses: {
          '200': {
            description: '{"active": false} for unknown, expired, revoked or another account\'s token',
            content: json({
              type: 'object',
              required: ['active'],
              properties: {
                active: { type: 'boolean' },
                client_id: { type: 'string' },
                sub: { type: 'string' },
                exp: { type: 'integer' },
                iat: { type: 'integer' },
                token_type: { const: 'Bearer' },
              },
            }),
          },
          '400': { description: 'token missing', content: json(oauthError) },
          '401': { description: 'Caller not authenticated', content: json(oauthError) },
          '429': tooMany,
        },
      },
    },
    '/oauth/revoke': {
      post: {
        summary: "RFC 7009 token revocation (only the caller's own tokens)",
        description:
          "The account authenticates with its key (Basic, body or the seed's Bearer) or with one of its live access tokens as Bearer.",
        security: [{ clientBasic: [] }, { apiKeyBearer: [] }],
        requestBody: { required: true, content: tokenForm },
        responses: {
          '200': { description: "Revoked, or there was nothing of the caller's to revoke" },
          '400': { description: 'token missing', content: json(oauthError) },
          '401': { description: 'Account not authenticated', content: json(oauthError) },
          '429': tooMany,
        },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        summary: 'RFC 8414 authorization server metadata',
        responses: { '200': { description: 'Metadata', content: json({ type: 'object' }) } },
      },
    },
  },
};
