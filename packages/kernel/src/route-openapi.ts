/**
 * The OpenAPI side of the route declarations (route-declaration.ts): a service's document,
 * generated from its declarations through `@asteasolutions/zod-to-openapi`, with the error
 * envelopes of CONTRACT §2 as components.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodTypeAny } from 'zod';
import { isRefusalStatus, KEY_REPLACED_AT_HEADER, REFUSAL_HEADER, REFUSAL_REASONS, type Envelope } from '@platform/wire';
import {
  mountedPaths,
  OUTPUT_FORMAT,
  outputFormatParam,
  type BodyDeclaration,
  type ParamShape,
  type ResponseDeclaration,
  type RouteDeclaration,
} from './route-declaration';
import type { RouteEdge } from './route-edge';

/** The code/messages envelope (CONTRACT §2). */
export const CodeMessages = z
  .object({
    code: z.number().int(),
    messages: z.union([z.string(), z.record(z.array(z.string()))]),
  })
  .openapi('CodeMessages');

/** The lookup family's envelope (CONTRACT §4.2). */
export const ErrorMessage = z.object({ ErrorMessage: z.object({ errorCode: z.string(), msg: z.string() }) }).openapi('ErrorMessage');

/** RFC 6749 §5.2 errors. */
export const OAuthError = z.object({ error: z.string(), error_description: z.string().optional() }).openapi('OAuthError');

/** The schema of each error envelope: what a declared error answer's body is. */
export const ENVELOPE_SCHEMAS: Readonly<Record<Envelope, ZodTypeAny>> = {
  codeMessages: CodeMessages,
  errorMessage: ErrorMessage,
  oauth: OAuthError,
};

function content(edge: RouteEdge, json: ZodTypeAny, xml: ZodTypeAny = json, jsonOnly = false): NonNullable<ResponseConfig['content']> {
  return edge.formats.includes('XML') && !jsonOnly
    ? { 'application/json': { schema: json }, 'application/xml': { schema: xml } }
    : { 'application/json': { schema: json } };
}

/** Every 401, 403 and 429 says why (CONTRACT §2, refusal reasons). */
const REFUSAL_HEADERS = {
  [REFUSAL_HEADER]: z.enum(REFUSAL_REASONS).openapi({ description: 'Why the request was refused; the body keeps its one sentence.' }),
  [KEY_REPLACED_AT_HEADER]: z
    .string()
    .optional()
    .openapi({ description: 'With key_replaced: when the presented API key was replaced (RFC 3339, UTC). An extension.' }),
};

function responseOf(edge: RouteEdge, status: string, response: ResponseDeclaration): ResponseConfig {
  const refusal = isRefusalStatus(Number(status)) ? REFUSAL_HEADERS : undefined;
  if (typeof response === 'string')
    return {
      description: response,
      content: content(edge, ENVELOPE_SCHEMAS[edge.envelope]),
      ...(refusal ? { headers: z.object(refusal) } : {}),
    };
  const declared = response.headers === undefined && refusal === undefined ? undefined : { ...refusal, ...response.headers };
  return {
    description: response.description,
    ...(response.body || response.media
      ? {
          content: {
            ...(response.body ? content(edge, response.body, response.xmlBody, response.jsonOnly) : {}),
            ...Object.fromEntries(Object.entries(response.media ?? {}).map(([type, schema]) => [type, { schema }])),
          },
        }
      : {}),
    ...(declared ? { headers: z.object(declared) } : {}),
  };
}

/**
 * The request body: the declared document as the JSON body (the schema that validates it), beside
 * the media types described in `body`. A document is required when its schema refuses an empty
 * body (the kernel reads an absent body as `{}`).
 */
function requestBody(declaration: RouteDeclaration): BodyDeclaration | undefined {
  const { document } = declaration;
  if (!document) return declaration.body;
  const required = declaration.body?.required ?? !document.safeParse({}).success;
  return { required, content: { ...declaration.body?.content, 'application/json': document } };
}

/** The OpenAPI operations of one declaration (one per method and path). */
function operationsOf(declaration: RouteDeclaration): RouteConfig[] {
  const { edge } = declaration;
  const query: ParamShape = { ...declaration.params };
  if (edge.formats.includes('XML')) query[OUTPUT_FORMAT] ??= outputFormatParam;
  else delete query[OUTPUT_FORMAT];
  const request: RouteConfig['request'] = {
    ...(Object.keys(query).length > 0 ? { query: z.object(query) } : {}),
    ...(declaration.pathParams ? { params: z.object(declaration.pathParams) } : {}),
    ...(declaration.headerParams ? { headers: z.object(declaration.headerParams) } : {}),
  };
  const responses = Object.fromEntries(
    Object.entries(declaration.responses).map(([status, response]) => [status, responseOf(edge, status, response)]),
  );
  const deprecated = new Set(declaration.deprecatedPaths ?? []);
  const body = requestBody(declaration);
  return mountedPaths(declaration).flatMap((path) =>
    declaration.methods.map((method) => ({
      method,
      path,
      summary: declaration.methods.length > 1 ? `${declaration.summary} (${method.toUpperCase()})` : declaration.summary,
      ...(declaration.description ? { description: declaration.description } : {}),
      ...(deprecated.has(path) ? { deprecated: true } : {}),
      ...(declaration.security ? { security: declaration.security.map((requirement) => ({ ...requirement })) } : {}),
      request: {
        ...request,
        // Form and JSON bodies are read on POST only.
        ...(body && method !== 'get'
          ? {
              body: {
                ...(body.required === undefined ? {} : { required: body.required }),
                content: Object.fromEntries(Object.entries(body.content).map(([type, schema]) => [type, { schema }])),
              },
            }
          : {}),
      },
      responses,
    })),
  );
}

interface ParameterObject {
  description?: string;
  schema?: { description?: string };
}

/** A parameter's description belongs to the parameter (where generators of clients read it), not to its schema. */
function liftDescription(parameter: ParameterObject): void {
  const description = parameter.schema?.description;
  if (description === undefined || parameter.description !== undefined) return;
  parameter.description = description;
  delete parameter.schema?.description;
}

export interface ServiceDocumentOptions {
  info: { title: string; version: string; description?: string };
  routes: ReadonlyArray<RouteDeclaration>;
  securitySchemes?: Record<string, Record<string, unknown>>;
}

/** A service's OpenAPI 3.1 document, generated from its route declarations (served at /openapi.json). */
export function openApiDocument(options: ServiceDocumentOptions): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(options.securitySchemes ?? {})) {
    registry.registerComponent('securitySchemes', name, scheme as never);
  }
  for (const declaration of options.routes) {
    for (const operation of operationsOf(declaration)) registry.registerPath(operation);
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: options.info });
  // JSON round trip: the document is served and compared as plain data.
  const plain = JSON.parse(JSON.stringify(document)) as { paths?: Record<string, Record<string, { parameters?: ParameterObject[] }>> };
  for (const operation of Object.values(plain.paths ?? {}).flatMap((item) => Object.values(item))) {
    for (const parameter of operation.parameters ?? []) liftDescription(parameter);
  }
  return plain;
}

export { operationsRoutes } from './operations-routes';
