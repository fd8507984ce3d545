/**
 * Every answer in every service's `/openapi.json` and admin document has a schema (CONTRACT §8): a response with a
 * body but no schema, or an object schema that names nothing, is typed `never` or `{}` by
 * generated clients. Answers without a body are 204, 304 and the few listed below, each for
 * its reason.
 */
import { openApiDocument, operationsRoutes } from '@platform/kernel';
import { openapi as authDocument } from '@platform/auth/openapi';
import { adminOpenapi as categorizationAdminDocument, openapi as categorizationDocument } from '@platform/categorization/openapi';
import { openapi as notifierDocument } from '@platform/notifier/openapi';
import { adminOpenapi as userAdminDocument, openapi as userDocument } from '@platform/user/openapi';

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  anyOf?: unknown[];
  oneOf?: unknown[];
  allOf?: unknown[];
}

interface Response {
  content?: Record<string, { schema?: Schema }>;
}

interface Document {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components?: { schemas?: Record<string, Schema> };
}

/** Answers that have no body by their nature. */
const BODILESS_STATUSES = new Set(['204', '304']);
const BODILESS = new Map([['auth POST /oauth/revoke 200', 'RFC 7009 §2.2: the answer is the status; the body is empty']]);

const kernelDocument = openApiDocument({ info: { title: 'Kernel', version: '0' }, routes: operationsRoutes });

const DOCUMENTS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['auth', authDocument],
  ['user', userDocument],
  ['user admin', userAdminDocument],
  ['categorization', categorizationDocument],
  ['categorization admin', categorizationAdminDocument],
  ['notifier', notifierDocument],
  ['kernel', kernelDocument],
];

const isEmpty = (value: unknown): boolean => typeof value === 'object' && value !== null && Object.keys(value).length === 0;

/** What is wrong with a schema (followed through $ref): nothing, or why a client could not type it. */
function schemaProblem(schema: Schema | undefined, document: Document): string | undefined {
  if (schema === undefined) return 'no schema';
  if (schema.$ref !== undefined) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return schemaProblem(document.components?.schemas?.[name], document);
  }
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
  // No properties (or `{}`) and `additionalProperties: {}` (or true, or none) say only "some object".
  const anyMembers =
    schema.additionalProperties === undefined || schema.additionalProperties === true || isEmpty(schema.additionalProperties);
  if (isObject && (schema.properties === undefined || isEmpty(schema.properties)) && anyMembers) return 'an object schema naming nothing';
  if (schema.type === undefined && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.$ref) return 'a schema of no type';
  return undefined;
}

/** `service METHOD path status: problem` for every answer without a usable schema. */
function problemsOf(service: string, document: Document): string[] {
  const problems: string[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const answer = `${service} ${method.toUpperCase()} ${route} ${status}`;
        if (BODILESS_STATUSES.has(status) || BODILESS.has(answer)) continue;
        const media = Object.entries(response.content ?? {});
        if (media.length === 0) problems.push(`${answer}: no content`);
        for (const [type, { schema }] of media) {
          const problem = schemaProblem(schema, document);
          if (problem) problems.push(`${answer} ${type}: ${problem}`);
        }
      }
    }
  }
  return problems;
}

describe('every answer in the OpenAPI documents has a schema', () => {
  it.each(DOCUMENTS)('when the %s document is walked, then every response of every operation has a schema', (service, document) => {
    const walked = document as unknown as Document;
    // The walk must see answers at all.
    expect(Object.keys(walked.paths).length).toBeGreaterThan(0);
    expect(problemsOf(service, walked)).toEqual([]);
  });

  it('when a response has no schema or an empty object schema, then the walk reports it', () => {
    const document: Document = {
      paths: {
        '/a': {
          get: {
            responses: {
              '200': { content: {} },
              '201': { content: { 'application/json': { schema: { type: 'object' } } } },
              '202': { content: { 'application/json': { schema: { type: 'object', additionalProperties: {} } } } },
            },
          },
        },
      },
    };
    expect(problemsOf('x', document)).toEqual([
      'x GET /a 200: no content',
      'x GET /a 201 application/json: an object schema naming nothing',
      'x GET /a 202 application/json: an object schema naming nothing',
    ]);
  });
});
