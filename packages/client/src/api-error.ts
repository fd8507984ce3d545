/** A message string, or validation messages per field (`{"productId": ["The selected product id is invalid."]}`). */
export type ErrorMessages = string | Record<string, string[]>;

export interface ApiErrorInit {
  status: number;
  code: number | string;
  messages: ErrorMessages;
  requestId?: string | undefined;
  /** The system error code of a network failure (`ECONNREFUSED`, `ETIMEDOUT`…). */
  networkCode?: string;
  /** Why a 401, 403 or 429 was answered (`X-Refusal-Reason`). */
  reason?: string | undefined;
  /** When the presented key was replaced (`X-Key-Replaced-At`, with the reason `key_replaced`). */
  replacedAt?: string | undefined;
  cause?: unknown;
}

/**
 * The one error every call of the client throws. Both of the platform's envelopes map onto it:
 * `{"code", "messages"}` and `{"ErrorMessage": {"errorCode", "msg"}}` (and RFC 6749's
 * `{"error", "error_description"}`).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status of the answer; 0 when no answer arrived (network failure). */
  readonly status: number;
  /**
   * The envelope's code: the numeric `code`, the `errorCode` string or the OAuth `error`.
   * Without an envelope: the status, or `network_error` / `invalid_response`.
   */
  readonly code: number | string;
  readonly messages: ErrorMessages;
  /** `X-Request-Id` of the answer, to quote to support. */
  readonly requestId: string | undefined;
  /**
   * When no answer arrived: the system error code (`ECONNREFUSED`…), if the fetch named one.
   * The message names the method, origin and path, never the query string, which may hold a key.
   */
  readonly networkCode: string | undefined;
  /**
   * Why the platform refused the call (`X-Refusal-Reason`: `key_replaced`, `account_disabled`,
   * `no_credits`…), when it said; `refusalSentence(reason)` words it for a person.
   */
  readonly reason: string | undefined;
  /** When the presented key was replaced (RFC 3339), when the platform said (`X-Key-Replaced-At`). */
  readonly replacedAt: string | undefined;

  constructor(init: ApiErrorInit) {
    super(`${init.status} ${describeMessages(init.messages)}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.messages = init.messages;
    this.requestId = init.requestId;
    this.networkCode = init.networkCode;
    this.reason = init.reason;
    this.replacedAt = init.replacedAt;
  }

  /** The messages of one field of a 422 (empty when there are none). */
  fieldMessages(field: string): string[] {
    return typeof this.messages === 'string' ? [] : (this.messages[field] ?? []);
  }
}

function describeMessages(messages: ErrorMessages): string {
  if (typeof messages === 'string') return messages;
  return Object.entries(messages)
    .map(([field, texts]) => `${field}: ${texts.join(' ')}`)
    .join('; ');
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isFieldMessages(value: unknown): value is Record<string, string[]> {
  return isRecord(value) && Object.values(value).every((texts) => Array.isArray(texts) && texts.every((text) => typeof text === 'string'));
}

/** Maps an error answer's parsed body (any envelope, or none) onto an ApiError; `refusal`: what its headers said (`refusalOf`). */
export function errorFromBody(
  status: number,
  body: unknown,
  requestId?: string,
  fallback = `HTTP ${status}`,
  refusal: { reason?: string | undefined; replacedAt?: string | undefined } = {},
): ApiError {
  const answer = { status, requestId, reason: refusal.reason, replacedAt: refusal.replacedAt };
  if (isRecord(body)) {
    const { code, messages } = body;
    if ((typeof code === 'number' || typeof code === 'string') && (typeof messages === 'string' || isFieldMessages(messages))) {
      return new ApiError({ ...answer, code, messages });
    }
    const wrapped = body.ErrorMessage;
    if (isRecord(wrapped) && typeof wrapped.errorCode === 'string') {
      return new ApiError({ ...answer, code: wrapped.errorCode, messages: typeof wrapped.msg === 'string' ? wrapped.msg : fallback });
    }
    if (typeof body.error === 'string') {
      const description = body.error_description;
      return new ApiError({ ...answer, code: body.error, messages: typeof description === 'string' ? description : body.error });
    }
  }
  return new ApiError({ ...answer, code: status, messages: fallback });
}
