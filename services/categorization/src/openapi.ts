import { codeMessagesSchema, errorResponse } from '@platform/kernel';

const category = {
  type: 'object',
  required: ['id', 'name', 'parent'],
  properties: {
    id: { type: 'string', pattern: '^(IAB|CUS)-[0-9]+$', examples: ['IAB-1', 'CUS-3'] },
    name: { type: 'string', maxLength: 255 },
    parent: { type: ['string', 'null'], description: 'Id of the direct parent; null for a top-level category.' },
  },
};

const error = (description: string) => errorResponse(description, '#/components/schemas/Error');

/** OpenAPI 3.1 description of the categorization service's endpoints (served at /openapi.json). */
export const openapi: Record<string, unknown> = {
  openapi: '3.1.0',
  info: {
    title: 'Categorization service',
    version: '2.0.0',
    description:
      'Website categories: the IAB Tech Lab Content Taxonomy 2.2 (CC BY 3.0, © IAB Technology Laboratory, Inc.) plus custom categories.',
  },
  paths: {
    '/api/v2/categories': {
      get: {
        summary: 'List every category',
        description: 'No credential is required; a credential that is sent (apiKey or Authorization: Bearer) must be valid.',
        parameters: [
          {
            name: 'order',
            in: 'query',
            schema: { type: 'string', enum: ['IAB', 'ABC'], default: 'IAB' },
            description: 'Case-insensitive.',
          },
          {
            name: 'outputFormat',
            in: 'query',
            schema: { type: 'string', enum: ['JSON', 'XML'], default: 'JSON' },
            description: 'Case-insensitive.',
          },
          { name: 'apiKey', in: 'query', schema: { type: 'string' }, description: 'Optional API key or access token.' },
          { name: 'If-None-Match', in: 'header', schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'The categories, as a bare array.',
            headers: {
              ETag: { schema: { type: 'string' } },
              'Cache-Control': { schema: { type: 'string', const: 'public, max-age=300' } },
            },
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Category' } } },
              'application/xml': { schema: { type: 'string' } },
            },
          },
          '304': { description: 'Not modified (If-None-Match matched the ETag).' },
          '401': error('A credential was sent and is not valid.'),
          '422': error('Bad order or outputFormat.'),
          '503': error('The credential could not be checked, or the list is not loaded yet.'),
        },
      },
    },
    '/admin/v1/categories': {
      post: {
        summary: 'Create a custom category (CUS-<n>)',
        security: [{ adminToken: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name', 'parent'],
                properties: { name: { type: 'string', maxLength: 255 }, parent: { type: ['string', 'null'] } },
              },
            },
          },
        },
        responses: {
          '201': { description: 'Created.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Category' } } } },
          '401': error('Missing or wrong admin token.'),
          '409': error('A sibling already has this name (case-insensitive).'),
          '422': error('Missing or bad name or parent, or unknown parent.'),
        },
      },
    },
    '/admin/v1/categories/{id}': {
      delete: {
        summary: 'Delete a custom category without children',
        security: [{ adminToken: [] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '204': { description: 'Deleted.' },
          '401': error('Missing or wrong admin token.'),
          '404': error('Unknown id.'),
          '409': error('An IAB category, or a category with children.'),
        },
      },
    },
  },
  components: {
    schemas: { Category: category, Error: codeMessagesSchema },
    securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } },
  },
};
