/** JSON Schema of the code/messages error envelope (CONTRACT §2), for the services' OpenAPI documents. */
export const codeMessagesSchema = {
  type: 'object',
  required: ['code', 'messages'],
  properties: {
    code: { type: 'integer' },
    messages: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }] },
  },
} as const;

/** An error response of an OpenAPI document: JSON with the envelope schema `schemaRef`. */
export const errorResponse = (description: string, schemaRef = '#/components/schemas/CodeMessages') => ({
  description,
  content: { 'application/json': { schema: { $ref: schemaRef } } },
});

/** A response body offered in JSON and in XML (`outputFormat`), both with the schema `schemaRef`. */
export const jsonOrXmlRef = (schemaRef: string) => ({
  'application/json': { schema: { $ref: schemaRef } },
  'application/xml': { schema: { $ref: schemaRef } },
});

/** A string query parameter. */
export const queryParam = (name: string, description: string, required = false) => ({
  name,
  in: 'query',
  required,
  description,
  schema: { type: 'string' },
});
