import { AppError, invalidMessage, type FieldMessages } from './errors';

/** One request parameter after the contract's flattening rules (CONTRACT §2, §9). */
export type ParamValue = { kind: 'absent' } | { kind: 'value'; value: string } | { kind: 'invalid' };

const ABSENT: ParamValue = { kind: 'absent' };
const INVALID: ParamValue = { kind: 'invalid' };

function flatten(raw: unknown): ParamValue {
  if (raw === undefined || raw === null || raw === '') return ABSENT;
  if (typeof raw === 'string') return { kind: 'value', value: raw };
  if (typeof raw === 'number') return Number.isFinite(raw) ? { kind: 'value', value: String(raw) } : INVALID;
  // Arrays (repeated parameters), objects (a[b]=c, nested JSON) and booleans are not flat strings.
  return INVALID;
}

/** The keys of a source that bracket something (`a[b]`); most sources have none. */
function bracketedKeys(source: Record<string, unknown>): readonly string[] {
  let found: string[] | undefined;
  for (const key of Object.keys(source)) {
    if (key.includes('[')) (found ??= []).push(key);
  }
  return found ?? NONE;
}

const NONE: readonly string[] = [];

/**
 * One source's value for a name. Express's query parser and the form parser keep `a[b]=c` as a
 * key `a[b]`; such a key makes `a` structured, hence invalid (CONTRACT §2), even beside `a=1`.
 */
function read(source: Record<string, unknown>, bracketed: readonly string[], name: string): ParamValue {
  if (bracketed.length > 0) {
    const nested = `${name}[`;
    if (bracketed.some((key) => key.startsWith(nested))) return INVALID;
  }
  return Object.hasOwn(source, name) ? flatten(source[name]) : ABSENT;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The request's parameters from the query string and a JSON or form body; on POST the body
 * wins over the query string. Reads are case-sensitive by name, as the real service's are.
 */
export class Params {
  private readonly body: Record<string, unknown>;
  private query: Record<string, unknown> | undefined;
  // Keys with a bracket, found once per source instead of on every read.
  private bodyBracketed: readonly string[] | undefined;
  private queryBracketed: readonly string[] | undefined;

  /** `query`: the parsed query string, or a function that parses it when a name is not in the body. */
  constructor(
    query: unknown,
    body: unknown,
    private readonly parseQuery?: () => unknown,
  ) {
    this.query = parseQuery === undefined ? asRecord(query) : undefined;
    this.body = asRecord(body);
  }

  /** An HTTP request's parameters: its parsed body, and its query string read only when needed. */
  static from(req: { readonly body?: unknown; readonly query: unknown }): Params {
    // Express 5 parses the query string on every read of `req.query`: only when it is needed.
    return new Params(undefined, req.body, () => req.query);
  }

  get(name: string): ParamValue {
    const fromBody = read(this.body, (this.bodyBracketed ??= bracketedKeys(this.body)), name);
    if (fromBody.kind !== 'absent') return fromBody;
    const query = (this.query ??= asRecord(this.parseQuery?.()));
    return read(query, (this.queryBracketed ??= bracketedKeys(query)), name);
  }

  /** The raw body member, for endpoints that take nested JSON documents. */
  rawBody(): Record<string, unknown> {
    return this.body;
  }

  /** The string value, or undefined when absent; an invalid value is reported in `errors`. */
  string(name: string, errors: FieldMessages): string | undefined {
    const value = this.get(name);
    if (value.kind === 'invalid') {
      errors[name] = [invalidMessage(name)];
      return undefined;
    }
    return value.kind === 'value' ? value.value : undefined;
  }
}

export const NUMERIC = /^[0-9]+$/;

/** Throws the 422 for a non-empty error map. */
export function throwIfInvalid(errors: FieldMessages): void {
  if (Object.keys(errors).length > 0) throw new AppError('invalid_params', { fields: errors });
}
