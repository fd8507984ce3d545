import { ApiError, errorFromBody } from './api-error.js';
import { refusalOf } from './refusal.js';

/** The fetch the client calls: the platform's own unless one is given. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Headers made anew for each attempt, over `headers` (a single-use service JWT: a retry must not replay it). */
  attemptHeaders?: () => Promise<Record<string, string>>;
}

/** 429 and 503 are answered before any work is done, so they are safe to repeat. */
const RETRIED_STATUSES = new Set([429, 503]);
export const MAX_RETRIES = 3;
/** The platform's longest rate-limit window is a minute; a longer wait is not worth blocking a caller for. */
export const MAX_RETRY_DELAY_MS = 60_000;
const BACKOFF_BASE_MS = 250;

/**
 * How long to wait before retry number `attempt` (0-based): the answer's Retry-After (seconds
 * or an HTTP date) when present, else an exponential backoff with jitter.
 */
export function retryDelayMs(retryAfter: string | null, attempt: number, now = Date.now()): number {
  const value = retryAfter?.trim() ?? '';
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  const date = value === '' ? Number.NaN : Date.parse(value);
  if (!Number.isNaN(date)) return Math.max(0, date - now);
  const backoff = BACKOFF_BASE_MS * 2 ** attempt;
  return backoff / 2 + Math.random() * (backoff / 2);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Frees the connection of an answer whose body is not read. */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** Sends a request, retrying 429 and 503 at most MAX_RETRIES times as their Retry-After asks. */
export async function send(fetchFn: FetchFunction, request: HttpRequest): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    const attempted = request.attemptHeaders
      ? { ...request, headers: { ...request.headers, ...(await request.attemptHeaders()) } }
      : request;
    const response = await fetchOnce(fetchFn, attempted);
    if (!RETRIED_STATUSES.has(response.status) || attempt >= MAX_RETRIES) return response;
    const delay = retryDelayMs(response.headers.get('retry-after'), attempt);
    if (delay > MAX_RETRY_DELAY_MS) return response;
    await discard(response);
    await sleep(delay);
  }
}

/**
 * Where a request went, for an error message: origin and path only. The query string can carry
 * the API key (`api-key/generate?currentApiKey=…`), and an error message travels to logs,
 * terminals and error trackers.
 */
export function describeTarget(request: HttpRequest): string {
  try {
    const { origin, pathname } = new URL(request.url);
    return `${request.method} ${origin}${pathname}`;
  } catch {
    return request.method;
  }
}

/**
 * The failure of a fetch as text without anything the request carried: undici names the reason
 * (ECONNREFUSED, a TLS error…) in its cause, but a given fetch may quote the URL or a header.
 */
function networkDetail(error: unknown, request: HttpRequest): string {
  const cause = messageOf(fieldOf(error, 'cause'));
  const detail = `${messageOf(error) ?? String(error)}${cause === undefined ? '' : `: ${cause}`}`;
  const carried = [request.url, request.url.split('?')[1] ?? '', ...Object.values(request.headers), request.body ?? ''];
  let clean = detail;
  for (const value of carried) if (value.length >= 8) clean = clean.split(value).join('[redacted]');
  return withoutQuery(clean);
}

/** Text from elsewhere (an error, a status line) with whatever looks like a query string cut out. */
export function withoutQuery(text: string): string {
  return text.replace(/\?[^\s'"]*=[^\s'"]*/g, '?[redacted]');
}

// Errors are read by shape, not `instanceof`: the fetch's errors may come from another realm.
function fieldOf(value: unknown, field: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
}

function messageOf(value: unknown): string | undefined {
  const message = fieldOf(value, 'message');
  return typeof message === 'string' ? message : undefined;
}

async function fetchOnce(fetchFn: FetchFunction, request: HttpRequest): Promise<Response> {
  const init: RequestInit = { method: request.method, headers: request.headers };
  if (request.body !== undefined) init.body = request.body;
  try {
    return await fetchFn(request.url, init);
  } catch (error) {
    // The fetch's own error is not kept as the cause: it may hold the URL with its query string.
    const code = errorCode(error);
    throw new ApiError({
      status: 0,
      code: 'network_error',
      messages: `${describeTarget(request)} failed: ${networkDetail(error, request)}`,
      ...(code === undefined ? {} : { networkCode: code }),
    });
  }
}

/** The system error code of a network failure (`ECONNREFUSED`, …), from the error or its cause. */
function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 3; current = fieldOf(current, 'cause'), depth += 1) {
    const code = fieldOf(current, 'code');
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The parsed JSON body of a 2xx answer; any other answer becomes an ApiError. */
export async function readJson(response: Response): Promise<unknown> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const text = await response.text().catch((error: unknown) => {
    const code = errorCode(error);
    // The stream's error is not kept: like a fetch's, it is not the client's to pass on.
    throw new ApiError({
      status: response.status,
      code: 'network_error',
      messages: 'The answer was cut off.',
      requestId,
      ...(code === undefined ? {} : { networkCode: code }),
    });
  });
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch (error) {
    if (response.ok) {
      throw new ApiError({
        status: response.status,
        code: 'invalid_response',
        messages: 'The answer is not JSON.',
        requestId,
        cause: error,
      });
    }
  }
  if (!response.ok) {
    const fallback = withoutQuery(response.statusText) || `HTTP ${response.status}`;
    throw errorFromBody(response.status, body, requestId, fallback, refusalOf(response.headers));
  }
  return body;
}
