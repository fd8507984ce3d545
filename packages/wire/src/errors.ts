import { isRefusalStatus, KEY_REPLACED_AT_HEADER, REFUSAL_HEADER, type RefusalFinding, type RefusalReason } from './refusal';

/**
 * The closed set of error codes every service may raise. The domain picks a code; only
 * `describeError` below decides the HTTP status and the envelope (CONTRACT §2).
 */
export type ErrorCode =
  | 'malformed_body'
  | 'payload_too_large'
  | 'unauthenticated'
  | 'credits_exhausted'
  | 'read_only'
  | 'invalid_params'
  | 'invalid_request_params'
  | 'key_not_active'
  | 'unsupported_grant_type'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

/** Field name -> messages, as in `{"grantType": ["The grant type field is required."]}`. */
export type FieldMessages = Record<string, string[]>;

export interface AppErrorOptions {
  /** Per-field validation messages (invalid_params). */
  fields?: FieldMessages;
  /** Overrides the code's default message string (conflict, malformed_body, …). */
  message?: string;
  /** Seconds, for rate_limited and unavailable. */
  retryAfterSeconds?: number;
  /** Why a 401, 403 or 429 was answered (CONTRACT §2); by default the code's (`refusalReasonOf`). */
  reason?: RefusalReason;
  /**
   * A more precise reason that costs a lookup (a replaced key, a disabled account): run by the
   * error handler only once this refusal is the answer (not when a failure limit turns it into a
   * 429), so neither the happy path nor a limited client pays for it. If it fails, `reason` stands.
   */
  explain?: () => Promise<RefusalFinding>;
  cause?: unknown;
}

/** A typed error thrown by domain code; carries no HTTP knowledge. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fields: FieldMessages | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** The message given by the thrower, used in place of the code's default wording. */
  readonly customMessage: string | undefined;
  readonly reason: RefusalReason | undefined;
  readonly explain: (() => Promise<RefusalFinding>) | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(options.message ?? code, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.fields = options.fields;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.customMessage = options.message;
    this.reason = options.reason;
    this.explain = options.explain;
  }
}

/** The reason a refusal is answered with: the thrower's, else the code's; undefined for other errors. */
export function refusalReasonOf(error: AppError): RefusalReason | undefined {
  if (error.reason !== undefined) return error.reason;
  return DEFAULT_REASONS[error.code];
}

/** The reason of a refusal whose thrower named none. */
const DEFAULT_REASONS: Readonly<Partial<Record<ErrorCode, RefusalReason>>> = {
  unauthenticated: 'invalid_credential',
  // A 401 only in the OAuth envelope (invalid_client); its 400 elsewhere carries no reason.
  key_not_active: 'invalid_credential',
  credits_exhausted: 'pool_exhausted',
  read_only: 'read_only_admin',
  rate_limited: 'rate_limited',
};

export const ACCESS_RESTRICTED = 'Access restricted. Check credits balance or enter the correct API key.';

/** Turns a camelCase or dotted field name into the words used in validation messages. */
export function fieldWords(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();
}

export const requiredMessage = (field: string): string => `The ${fieldWords(field)} field is required.`;
export const invalidMessage = (field: string): string => `The selected ${fieldWords(field)} is invalid.`;

/** Builds the 422 error for one or more fields. */
export function invalidParams(fields: FieldMessages): AppError {
  return new AppError('invalid_params', { fields });
}

export interface ErrorDescription {
  status: number;
  /** The string form of `messages` (and `msg` in the ErrorMessage envelope). */
  message: string;
  /** errorCode in the ErrorMessage envelope. */
  errorCode: string;
  /** RFC 6749 §5.2 error, for the standard OAuth flow. */
  oauthError: string;
}

/** The one exhaustive mapping from code to status and wording. */
export function describeError(code: ErrorCode): ErrorDescription {
  switch (code) {
    case 'malformed_body':
      return { status: 400, message: 'Malformed request body.', errorCode: 'REQUEST_01', oauthError: 'invalid_request' };
    case 'payload_too_large':
      return { status: 413, message: 'Request body too large.', errorCode: 'REQUEST_02', oauthError: 'invalid_request' };
    case 'unauthenticated':
      return { status: 401, message: ACCESS_RESTRICTED, errorCode: 'AUTHENTICATE_01', oauthError: 'invalid_client' };
    case 'credits_exhausted':
      return { status: 403, message: ACCESS_RESTRICTED, errorCode: 'AUTHENTICATE_02', oauthError: 'invalid_client' };
    case 'read_only':
      return { status: 403, message: 'This admin token may only read.', errorCode: 'AUTHENTICATE_04', oauthError: 'access_denied' };
    case 'invalid_params':
      return { status: 422, message: 'Input correct request parameters.', errorCode: 'VALIDATION_01', oauthError: 'invalid_request' };
    case 'invalid_request_params':
      return { status: 422, message: 'Input correct request parameters.', errorCode: 'VALIDATION_01', oauthError: 'invalid_request' };
    case 'key_not_active':
      return {
        status: 400,
        message: 'The API key you entered does not exist or is no longer active.',
        errorCode: 'AUTHENTICATE_03',
        oauthError: 'invalid_client',
      };
    case 'unsupported_grant_type':
      return {
        status: 400,
        message: 'The selected grant type is invalid.',
        errorCode: 'VALIDATION_02',
        oauthError: 'unsupported_grant_type',
      };
    case 'not_found':
      return { status: 404, message: 'Not found.', errorCode: 'NOT_FOUND_01', oauthError: 'invalid_request' };
    case 'conflict':
      return { status: 409, message: 'Conflict.', errorCode: 'CONFLICT_01', oauthError: 'invalid_request' };
    case 'rate_limited':
      return { status: 429, message: 'Too Many Requests. Try your call again later.', errorCode: 'RATE_LIMIT_01', oauthError: 'slow_down' };
    case 'unavailable':
      return {
        status: 503,
        message: 'Service temporarily unavailable. Try your call again later.',
        errorCode: 'UNAVAILABLE_01',
        oauthError: 'temporarily_unavailable',
      };
    case 'internal':
      return { status: 500, message: 'Internal server error.', errorCode: 'INTERNAL_01', oauthError: 'server_error' };
  }
}

/** Which of the seed's envelopes a route answers errors in. */
export type Envelope = 'codeMessages' | 'errorMessage' | 'oauth';

export interface RenderedError {
  status: number;
  /** The JSON body. */
  body: unknown;
  /** What the XML form renders, under which root element. */
  xml: { root: string; value: unknown };
  headers: Record<string, string>;
  /** The refusal reason of a 401, 403 or 429 (also in `headers`). */
  reason: RefusalReason | undefined;
}

/**
 * RFC 6749 §5.2: invalid_request and unsupported_grant_type are 400, invalid_client is 401
 * (CONTRACT §4.1: also for an account whose pools are all 0); 413 keeps its own status.
 */
function oauthStatus(description: ErrorDescription): number {
  if (description.status === 413) return 413;
  switch (description.oauthError) {
    case 'invalid_request':
    case 'unsupported_grant_type':
      return 400;
    case 'invalid_client':
      return 401;
    default:
      return description.status;
  }
}

const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * Converts any thrown value into status, headers and envelope body. Never throws. `explained`:
 * what the error's `explain` found: its reason in place of the error's own, and a replaced key's time.
 */
export function renderError(error: unknown, envelope: Envelope, explained?: RefusalFinding): RenderedError {
  const appError = error instanceof AppError ? error : new AppError('internal');
  const description = describeError(appError.code);
  // A 500 never tells the client more than the contract's sentence (the cause goes to the log).
  const internal = appError.code === 'internal';
  const message = internal ? description.message : (appError.customMessage ?? description.message);
  const fields = internal ? undefined : appError.fields;
  const headers: Record<string, string> = {};
  const retryAfter = appError.retryAfterSeconds;
  if (retryAfter !== undefined && Number.isFinite(retryAfter)) {
    // delay-seconds (RFC 9110 §10.2.3) is a whole number of digits: at least 1, at most a day.
    headers['Retry-After'] = String(Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(retryAfter))));
  }
  // Rate limiting keeps the code/messages envelope everywhere (CONTRACT §2, §9).
  const effective: Envelope = appError.code === 'rate_limited' && envelope === 'oauth' ? 'codeMessages' : envelope;
  const status = effective === 'oauth' ? oauthStatus(description) : description.status;
  const reason = isRefusalStatus(status) ? (explained?.reason ?? refusalReasonOf(appError)) : undefined;
  if (reason !== undefined) headers[REFUSAL_HEADER] = reason;
  const replacedAt = explained?.replacedAt;
  if (reason === 'key_replaced' && replacedAt !== undefined && Number.isFinite(replacedAt.getTime()))
    headers[KEY_REPLACED_AT_HEADER] = replacedAt.toISOString();
  switch (effective) {
    case 'codeMessages': {
      const body = { code: description.status, messages: fields ?? message };
      return { status, body, xml: { root: 'xml', value: body }, headers, reason };
    }
    case 'errorMessage': {
      const firstFieldMessage = fields ? Object.values(fields)[0]?.[0] : undefined;
      const inner = { errorCode: description.errorCode, msg: firstFieldMessage ?? message };
      return { status, body: { ErrorMessage: inner }, xml: { root: 'ErrorMessage', value: inner }, headers, reason };
    }
    case 'oauth': {
      const descriptionText = fields ? Object.values(fields).flat().join(' ') : message;
      const body = { error: description.oauthError, error_description: descriptionText };
      return { status, body, xml: { root: 'xml', value: body }, headers, reason };
    }
  }
}
