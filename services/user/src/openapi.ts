import { codeMessagesSchema, errorResponse, jsonOrXmlRef, queryParam } from '@platform/kernel';

const outputFormat = queryParam('outputFormat', 'JSON (default) or XML, case-insensitive.');
const apiKey = queryParam('apiKey', 'API key or access token; or send `Authorization: Bearer <token>` instead.');
const bearer = [{ credential: [] }, {}];

const balanceOperation = (method: string) => ({
  summary: `Account balance (${method})`,
  description: 'One item per held product, ordered by product id; products sharing a pool show the same credits.',
  parameters: [apiKey, queryParam('productId', 'Only this product.'), outputFormat],
  security: bearer,
  responses: {
    200: { description: 'Balance', content: jsonOrXmlRef('#/components/schemas/Balance') },
    401: errorResponse('Missing or bad credential'),
    422: errorResponse('Bad productId or outputFormat'),
  },
});

const usageHistoryOperation = (method: string) => ({
  summary: `Usage history (${method})`,
  description:
    'Credits used per UTC day and product over the last `days` days, today included, ordered by date, then product id. ' +
    'Only debits through the usage API count; days without usage have no item.',
  parameters: [
    apiKey,
    queryParam('days', 'Days to cover, 1–90 (default 30).'),
    queryParam('productId', 'Only this product.'),
    outputFormat,
  ],
  security: bearer,
  responses: {
    200: { description: 'Usage history', content: jsonOrXmlRef('#/components/schemas/UsageHistory') },
    401: errorResponse('Missing or bad credential'),
    422: errorResponse('Bad days, productId or outputFormat'),
  },
});

const settingsDescription = {
  description: 'Notification settings',
  content: jsonOrXmlRef('#/components/schemas/NotificationSettings'),
};

/** OpenAPI 3.1 description of the user service's public, admin and internal endpoints (served at /openapi.json). */
export const openapi: Record<string, unknown> = {
  openapi: '3.1.0',
  info: { title: 'User service', version: '1.0.0', description: 'Accounts, API keys, credit balances, notification settings.' },
  paths: {
    '/user-service/account-balance': { get: balanceOperation('GET'), post: balanceOperation('POST') },
    '/service/account-balance': {
      get: { ...balanceOperation('GET'), deprecated: true },
      post: { ...balanceOperation('POST'), deprecated: true },
    },
    '/user-service/api-key/generate': {
      get: {
        summary: 'Replace the API key',
        description: 'The old key stops working at once and every earlier access token is revoked. Only the API key itself may rotate.',
        parameters: [queryParam('currentApiKey', 'The key in force (not a token).', true), outputFormat],
        responses: {
          200: { description: 'New key', content: jsonOrXmlRef('#/components/schemas/ApiKey') },
          400: errorResponse('Unknown or inactive key'),
          422: errorResponse('Missing or malformed currentApiKey, or bad outputFormat'),
          503: errorResponse('Token store or database unavailable; nothing was rotated'),
        },
      },
    },
    '/user-service/notification-settings': {
      get: {
        summary: 'Read notification settings',
        parameters: [apiKey, outputFormat],
        security: bearer,
        responses: { 200: settingsDescription, 401: errorResponse('Missing or bad credential') },
      },
      post: {
        summary: 'Change notification settings',
        description: 'Any nested subset of the document; members not named keep their value.',
        parameters: [apiKey, outputFormat],
        security: bearer,
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NotificationSettings' } } } },
        responses: { 200: settingsDescription, 401: errorResponse('Missing or bad credential'), 422: errorResponse('Bad value') },
      },
    },
    '/user-service/usage-history': { get: usageHistoryOperation('GET'), post: usageHistoryOperation('POST') },
    '/admin/v1/accounts': {
      post: {
        summary: 'Create an account (admin)',
        security: [{ admin: [] }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['email'],
                properties: {
                  email: { type: 'string' },
                  credits: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
                },
              },
            },
          },
        },
        responses: {
          201: { description: 'Created; the API key is shown only here' },
          401: errorResponse('Missing or wrong admin token'),
          409: errorResponse('E-mail taken'),
          422: errorResponse('Bad input'),
        },
      },
    },
    '/admin/v1/accounts/{id}': {
      get: {
        summary: 'Show an account (admin)',
        security: [{ admin: [] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          200: { description: 'Account and balances' },
          401: errorResponse('Missing or wrong admin token'),
          404: errorResponse('Unknown account'),
        },
      },
    },
    '/admin/v1/accounts/{id}/credits': {
      post: {
        summary: 'Top up (positive amount) or adjust (negative, clamped at 0) a pool (admin)',
        security: [{ admin: [] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['productId', 'amount'],
                properties: { productId: { type: 'integer' }, amount: { type: 'integer' } },
              },
            },
          },
        },
        responses: {
          200: { description: '`{"productId", "credits"}`' },
          401: errorResponse('Missing or wrong admin token'),
          404: errorResponse('Unknown account'),
          422: errorResponse('Bad input'),
        },
      },
    },
    '/internal/v1/usage': {
      post: {
        summary: 'Debit a product pool for a customer call (internal, product services)',
        description:
          'Service JWT (HS256, audience `user`, `exp` at most 5 minutes ahead) as Bearer. Debits `units` from the ' +
          "product's pool, all or nothing, in a batch with the other debits that arrive meanwhile, and answers once the batch " +
          'has committed (a 200 is durable). A granted answer is kept under `requestId` for at least 24 hours: a replay with the ' +
          'same body gets it and debits nothing; a replay with a different body is 409. A refusal (401, 403) keeps nothing. JSON only.',
        security: [{ serviceJwt: [] }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['credential', 'productId', 'requestId'],
                properties: {
                  credential: { type: 'string', description: "The customer's API key or access token." },
                  productId: { type: ['integer', 'string'], description: 'Catalogue product id (numeric strings allowed).' },
                  units: { type: ['integer', 'string'], minimum: 1, maximum: 10_000, default: 1 },
                  requestId: { type: 'string', minLength: 1, maxLength: 200, description: 'Idempotency key, global.' },
                },
              },
            },
          },
        },
        responses: {
          200: {
            description: 'Debited; `credits` is what the pool holds afterwards',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/UsageGrant' } } },
          },
          401: errorResponse('Missing or bad service JWT ("Invalid service token."), or bad customer credential'),
          403: errorResponse('Pool exhausted (fewer credits than units) or product not held'),
          409: errorResponse('requestId already used with a different body'),
          422: errorResponse('Bad productId, units or requestId'),
          503: errorResponse('Database or token store unavailable; nothing was debited (retry with the same requestId)'),
        },
      },
    },
  },
  components: {
    securitySchemes: {
      credential: { type: 'http', scheme: 'bearer', description: 'Access token (or API key)' },
      admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
      serviceJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Service JWT signed with SERVICE_JWT_SECRET' },
    },
    schemas: {
      CodeMessages: codeMessagesSchema,
      Balance: {
        type: 'object',
        properties: {
          data: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                product_id: { type: 'integer' },
                product: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
                credits: { type: 'integer' },
              },
            },
          },
        },
      },
      UsageHistory: {
        type: 'object',
        properties: {
          data: {
            type: 'array',
            items: {
              type: 'object',
              required: ['date', 'product_id', 'product', 'credits_used'],
              properties: {
                date: { type: 'string', format: 'date' },
                product_id: { type: 'integer' },
                product: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
                credits_used: { type: 'integer', minimum: 1 },
              },
            },
          },
        },
      },
      UsageGrant: {
        type: 'object',
        properties: { accountId: { type: 'integer' }, productId: { type: 'integer' }, credits: { type: 'integer', minimum: 0 } },
      },
      ApiKey: { type: 'object', properties: { apiKey: { type: 'string', pattern: '^at_[A-Za-z0-9]{29}$' } } },
      NotificationSettings: {
        type: 'object',
        properties: {
          lowBalanceAlert: {
            type: 'object',
            properties: { enabled: { type: 'boolean' }, threshold: { type: 'integer', minimum: 0, maximum: 1_000_000_000 } },
          },
          zeroBalanceAlert: { type: 'object', properties: { enabled: { type: 'boolean' } } },
        },
      },
    },
  },
};
