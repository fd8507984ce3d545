/// <reference types="@asteasolutions/zod-to-openapi" preserve="true" />
/**
 * A route declared once (issue 13, "one edge per route"): its methods and paths, its edge, its
 * summary, a zod schema of its parameters and of its answers. From the declaration come the
 * mounting (`mountRoute`), the validation with the contract's 422 messages (`input()`), the
 * output formats, error envelope and challenge (the edge), and the OpenAPI operation
 * (`openApiDocument` in route-openapi.ts, through `@asteasolutions/zod-to-openapi`); the
 * validation is in route-validation.ts, the mounting in route-mounting.ts. Modelled on Unkey's
 * `apps/api/src/routes/*`: the route object is at once the validator, the OpenAPI entry and the
 * response type.
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import type { Request, Response } from 'express';
import { z, type ZodTypeAny } from 'zod';
import type { Params } from '@platform/wire';
import type { RouteEdge } from './route-edge';

extendZodWithOpenApi(z);

export const OUTPUT_FORMAT = 'outputFormat';

/**
 * `outputFormat` (CONTRACT §2), documented on every route whose edge answers XML and decided by
 * the kernel, never by the schema. A declaration names it in `params` only to place its message
 * among the others (it is reported first otherwise).
 */
export const outputFormatParam = z.enum(['JSON', 'XML']).optional().openapi({ description: 'JSON (default) or XML, case-insensitive.' });

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The flat parameters of a route (query string or body, the body winning; CONTRACT §2), one zod schema per name over the string value. */
export type ParamShape = Record<string, ZodTypeAny>;

/** An answer the route gives itself: its body schema (rendered in the edge's formats), or none. */
export interface AnswerDeclaration {
  description: string;
  /** The body; omitted for an answer without one (204, 304, or one the document does not describe). */
  body?: ZodTypeAny;
  /** The XML form's schema when it differs from the JSON one. */
  xmlBody?: ZodTypeAny;
  /** Answered in JSON only, whatever the edge's formats (an RFC 6749 error beside a seed answer). */
  jsonOnly?: boolean;
  /** Response headers, by name. */
  headers?: Record<string, ZodTypeAny>;
  /**
   * The media types the route answers in besides the edge's JSON (and XML), by type, with their
   * body: beside `body` (`text/csv` when asked `?format=csv`), or alone when the answer is never
   * JSON (`text/html`, Prometheus's text).
   */
  media?: Record<string, ZodTypeAny>;
}

/**
 * An answer of the declaration: a string is an error the kernel renders (the edge's envelope in
 * the edge's formats), an object an answer of the route's own.
 */
export type ResponseDeclaration = string | AnswerDeclaration;

/**
 * A request body described for the document only: a form the route reads as flat `params`, or
 * the bodies of a route whose grants read them (`/oauth/token`). A JSON body the route reads as
 * one document is its `document`, at once its validator and its description.
 */
export interface BodyDeclaration {
  /** Media type → schema. */
  content: Record<string, ZodTypeAny>;
  required?: boolean;
}

export interface RouteDeclaration<S extends ParamShape = ParamShape, D extends ZodTypeAny = ZodTypeAny, P extends ParamShape = ParamShape> {
  readonly methods: readonly HttpMethod[];
  /** OpenAPI paths (`/admin/v1/accounts/{id}`); the first ones are current, `deprecatedPaths` are mounted too. */
  readonly paths: readonly string[];
  readonly deprecatedPaths?: readonly string[];
  readonly edge: RouteEdge;
  readonly summary: string;
  readonly description?: string;
  /** Security requirements (names of the document's security schemes); `{}` is "none". */
  readonly security?: ReadonlyArray<Record<string, string[]>>;
  /** The flat parameters: validated by `input()`, documented as query parameters. */
  readonly params?: S;
  /**
   * How an invalid parameter is answered: `fields` (default), 422 with one message per field
   * (`The selected product id is invalid.`), or `request`, the one string 422 of key generation.
   */
  readonly refusal?: 'fields' | 'request';
  /**
   * Path parameters, validated by `path()`: a value its schema refuses names nothing (404), as
   * an account id that is not a number does.
   */
  readonly pathParams?: P;
  /** A documented, non-validated header parameter (If-None-Match, …). */
  readonly headerParams?: ParamShape;
  readonly body?: BodyDeclaration;
  /**
   * The JSON body read as one nested document: validated with the parameters by `input()` and
   * documented as the JSON request body (the one schema of both). Each problem is reported
   * under its dotted name (`lowBalanceAlert.threshold`), `required` when absent, else `invalid`,
   * or in the wording the schema gives (document-schema.ts).
   */
  readonly document?: D;
  /**
   * The document as most clients send it, read without the schema, for a route on a hot path:
   * the schema's output, or undefined to leave the body to the schema (anything unusual, and
   * every refusal). It never accepts what the schema refuses nor answers otherwise; the contract
   * suite checks that against the schema on generated bodies (tests/contract/plain-documents).
   */
  readonly plainDocument?: (raw: unknown) => z.output<D> | undefined;
  /**
   * The JSON body limit (`'1mb'`) where the contract allows more than the common 16 KiB
   * (`largeJsonBodies` hands it to the kernel's body parsing); on paths without parameters only.
   */
  readonly bodyLimit?: string;
  readonly responses: Readonly<Record<number, ResponseDeclaration>>;
  /** A public endpoint of CONTRACT §2: it answers CORS requests and preflights from any origin (`corsEndpoints`). */
  readonly cors?: boolean;
  /**
   * The route answers with one account's own data (CONTRACT §2: balance, usage history,
   * notification settings, webhook deliveries) or a credential: every answer it gives, errors
   * included, carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`
   * (ACCOUNT_DATA_HEADERS), set by the kernel before the route runs.
   */
  readonly accountData?: boolean;
}

/** What every answer of a route declared `accountData` carries: no cache keeps it, no browser sniffs it as another type. */
export const ACCOUNT_DATA_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
});

/** The value of every declared parameter after validation. */
export type ParamValues<S extends ParamShape> = { [K in keyof S]: z.output<S[K]> };

/** The declared parameters, validated, and the declared document (`undefined` when none is declared). */
export type RouteInput<S extends ParamShape, D extends ZodTypeAny> = ParamValues<S> & { readonly document: z.output<D> };

/** The members of an object document its schema accepted, when the whole was refused. */
export type AcceptedMembers<D extends ZodTypeAny> = Partial<z.output<D>>;

/** What a declared route receives besides the request and response. */
export interface DeclaredRequest<S extends ParamShape, D extends ZodTypeAny = ZodTypeAny, P extends ParamShape = ParamShape> {
  /** The request's parameters (read once, shared with the kernel). */
  readonly params: Params;
  /**
   * The declared parameters and document, validated: a 422 (with the refused `outputFormat`, in
   * the contract's messages) when one is invalid. Called where the route's order of checks puts
   * the parameters (after the credential, CONTRACT §2).
   */
  input(): RouteInput<S, D>;
  /**
   * `input()` and a domain rule that needs I/O (a product id must be in the catalogue), run on
   * the document members the schema accepted: the field problems the rule throws are reported
   * together with the schema's, after them. Answers the input and the rule's result.
   */
  inputWith<R>(rule: (accepted: AcceptedMembers<D>) => Promise<R>): Promise<{ input: RouteInput<S, D>; ruled: R }>;
  /** The declared path parameters, validated: a 404 when one names nothing its schema accepts. */
  path(): ParamValues<P>;
}

export type DeclaredRouteFn<S extends ParamShape, D extends ZodTypeAny, P extends ParamShape = ParamShape> = (
  req: Request,
  res: Response,
  request: DeclaredRequest<S, D, P>,
) => Promise<void> | void;

/** Declares a route; the identity, typed (so that `params`, `document` and `pathParams` keep their types). */
export function declareRoute<
  S extends ParamShape = Record<never, ZodTypeAny>,
  D extends ZodTypeAny = z.ZodUndefined,
  P extends ParamShape = Record<never, ZodTypeAny>,
>(declaration: RouteDeclaration<S, D, P>): RouteDeclaration<S, D, P> {
  return Object.freeze(declaration);
}

/** Every path a declaration mounts, the deprecated ones last. */
export function mountedPaths(declaration: Pick<RouteDeclaration, 'paths' | 'deprecatedPaths'>): string[] {
  return [...declaration.paths, ...(declaration.deprecatedPaths ?? [])];
}
