/** The validation of a declared route's input (`input()`, `inputWith()`, `path()`), in the contract's 422 and 404. */
import type { Response } from 'express';
import type { ZodTypeAny } from 'zod';
import { AppError, invalidMessage, requiredMessage, type FieldMessages, type Params } from '@platform/wire';
import { ruleMessages, validateDocument } from './document-schema';
import { checkOutputFormat } from './route-handler';
import {
  OUTPUT_FORMAT,
  type AcceptedMembers,
  type ParamShape,
  type ParamValues,
  type RouteDeclaration,
  type RouteInput,
} from './route-declaration';

type Validation = Pick<RouteDeclaration<ParamShape, ZodTypeAny>, 'params' | 'refusal' | 'document' | 'plainDocument'>;

interface Collected {
  values: Record<string, unknown>;
  errors: FieldMessages;
  /** The document's accepted members (all of it when valid). */
  accepted: Record<string, unknown>;
}

function refusal(declaration: Validation, errors: FieldMessages): AppError {
  return declaration.refusal === 'request' ? new AppError('invalid_request_params') : new AppError('invalid_params', { fields: errors });
}

/**
 * Validates a route's declared parameters (CONTRACT §2): a refused `outputFormat` first, then
 * every parameter in declaration order, each reported under its own name: a structured value
 * (`a[b]=c`, an array, nested JSON) or one its schema refuses is `The selected <name> is
 * invalid.`; an absent one its schema requires is `The <name> field is required.`; then the
 * declared document's problems.
 */
function collect(declaration: Validation, params: Params, res?: Response): Collected {
  const errors: FieldMessages = {};
  const declared: ParamShape = declaration.params ?? {};
  // The kernel decided the format; it is reported first, or where the declaration names it.
  if (res && !Object.hasOwn(declared, OUTPUT_FORMAT)) checkOutputFormat(res, errors);
  const values: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(declared)) {
    if (name === OUTPUT_FORMAT) {
      if (res) checkOutputFormat(res, errors);
      continue;
    }
    const raw = params.get(name);
    if (raw.kind === 'invalid') {
      errors[name] = [invalidMessage(name)];
      continue;
    }
    const parsed = schema.safeParse(raw.kind === 'value' ? raw.value : undefined);
    if (parsed.success) values[name] = parsed.data;
    else errors[name] = [raw.kind === 'absent' ? requiredMessage(name) : invalidMessage(name)];
  }
  let accepted: Record<string, unknown> = {};
  if (declaration.document) {
    const raw = params.rawBody();
    const plain: unknown = declaration.plainDocument?.(raw);
    const outcome = plain === undefined ? validateDocument(declaration.document, raw, errors) : { ok: true as const, value: plain };
    if (outcome.ok) {
      values.document = outcome.value;
      accepted = outcome.value as Record<string, unknown>;
    } else accepted = outcome.accepted;
  }
  return { values, errors, accepted };
}

/** The declared parameters and document, validated (`input()`): their values, or the 422. */
export function validateParams<S extends ParamShape, D extends ZodTypeAny>(
  declaration: Pick<RouteDeclaration<S, D>, 'params' | 'refusal' | 'document' | 'plainDocument'>,
  params: Params,
  res?: Response,
): RouteInput<S, D> {
  const { values, errors } = collect(declaration, params, res);
  if (Object.keys(errors).length > 0) throw refusal(declaration, errors);
  return values as RouteInput<S, D>;
}

/** `validateParams` and a domain rule run on the accepted document members (`inputWith()`), their problems reported together. */
export async function validateParamsWith<S extends ParamShape, D extends ZodTypeAny, R>(
  declaration: Pick<RouteDeclaration<S, D>, 'params' | 'refusal' | 'document' | 'plainDocument'>,
  params: Params,
  rule: (accepted: AcceptedMembers<D>) => Promise<R>,
  res?: Response,
): Promise<{ input: RouteInput<S, D>; ruled: R }> {
  const { values, errors, accepted } = collect(declaration, params, res);
  const ruled = await ruleMessages(() => rule(accepted as AcceptedMembers<D>), errors);
  if (Object.keys(errors).length > 0) throw refusal(declaration, errors);
  return { input: values as RouteInput<S, D>, ruled: ruled as R };
}

/** The declared path parameters, validated: a value its schema refuses names nothing (404). */
export function validatePath<P extends ParamShape>(declared: P | undefined, path: Record<string, unknown>): ParamValues<P> {
  const values: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(declared ?? {})) {
    const parsed = schema.safeParse(path[name]);
    if (!parsed.success) throw new AppError('not_found');
    values[name] = parsed.data;
  }
  return values as ParamValues<P>;
}
