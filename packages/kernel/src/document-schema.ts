/**
 * A route's declared JSON document (its request body) as its validator: the zod schema the
 * declaration documents is the one that refuses a request, and this file is the one place that
 * turns zod's issues into the contract's 422 messages (CONTRACT §2): `The <words> field is
 * required.` for an absent member, `The selected <words> is invalid.` for any other problem, or
 * the wording a schema attaches to a rule of its own (`fieldMessage`).
 */
import { z, type ZodTypeAny } from 'zod';
import { AppError, invalidMessage, requiredMessage, type FieldMessages } from '@platform/wire';

const WIRE_MESSAGE = 'wireMessage';

/**
 * The options of a refinement whose refusal the contract words itself
 * (`.refine(fits, fieldMessage('The name may not be greater than 255 characters.'))`).
 */
export function fieldMessage(message: string): { params: Record<string, string> } {
  return { params: { [WIRE_MESSAGE]: message } };
}

/**
 * A member for which an empty string or a JSON null counts as not given (CONTRACT §9): the
 * schema then sees `undefined` (absent: `required`, or its default).
 */
export function absentIfEmpty<T extends ZodTypeAny>(schema: T) {
  return z.preprocess((value) => (value === null || value === '' ? undefined : value), schema);
}

/** An issue about a value that was not given: every alternative of a union refused `undefined`. */
function isMissing(issue: z.ZodIssue): boolean {
  if (issue.code === 'invalid_type') return issue.received === 'undefined';
  if (issue.code === 'invalid_union') return issue.unionErrors.every((error) => error.issues.every(isMissing));
  return false;
}

function messageOf(issue: z.ZodIssue, field: string): string {
  if (issue.code === 'custom') {
    const worded: unknown = issue.params?.[WIRE_MESSAGE];
    if (typeof worded === 'string') return worded;
  }
  return isMissing(issue) ? requiredMessage(field) : invalidMessage(field);
}

/** Adds one message per field (its first problem), under its dotted name (`lowBalanceAlert.threshold`), in the order zod found them. */
export function addIssueMessages(issues: readonly z.ZodIssue[], errors: FieldMessages): void {
  for (const issue of issues) {
    const field = issue.path.join('.');
    errors[field] ??= [messageOf(issue, field)];
  }
}

/** The object schema under a document's refinements and transforms, if it is one. */
function objectOf(schema: ZodTypeAny): z.AnyZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema as z.AnyZodObject;
  if (schema instanceof z.ZodEffects) return objectOf((schema as z.ZodEffects<ZodTypeAny>).innerType());
  return undefined;
}

/** A document validated: its value, or the members its schema accepted (of an object document) and the messages of the rest. */
export type DocumentOutcome<T> = { ok: true; value: T } | { ok: false; accepted: Record<string, unknown> };

/** Validates a document against its declared schema, adding the messages of its problems to `errors`. */
export function validateDocument<D extends ZodTypeAny>(schema: D, raw: unknown, errors: FieldMessages): DocumentOutcome<z.output<D>> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data as z.output<D> };
  addIssueMessages(parsed.error.issues, errors);
  const accepted: Record<string, unknown> = {};
  const object = objectOf(schema);
  if (object && raw !== null && typeof raw === 'object') {
    for (const [name, member] of Object.entries(object.shape as Record<string, ZodTypeAny>)) {
      const one = member.safeParse((raw as Record<string, unknown>)[name]);
      if (one.success) accepted[name] = one.data;
    }
  }
  return { ok: false, accepted };
}

/**
 * Runs a domain rule that needs I/O on what the schema accepted and merges the field problems it
 * throws (`invalid_params`) after the schema's, so that every problem is reported together.
 * Answers the rule's result, or undefined when it refused.
 */
export async function ruleMessages<R>(rule: () => Promise<R>, errors: FieldMessages): Promise<R | undefined> {
  try {
    return await rule();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'invalid_params' || error.fields === undefined) throw error;
    for (const [field, messages] of Object.entries(error.fields)) errors[field] ??= messages;
    return undefined;
  }
}
