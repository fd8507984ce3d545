/** JSON Schema of the code/messages error envelope (CONTRACT §2), for the services' OpenAPI documents. */
export const codeMessagesSchema = {
  type: 'object',
  required: ['code', 'messages'],
  properties: {
    code: { type: 'integer' },
    messages: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }] },
  },
} as const;
