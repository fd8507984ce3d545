import { Pool, type Dispatcher } from 'undici';
import { AppError, isRefusalReason, REFUSAL_HEADER, type RefusalReason } from '@platform/wire';

/** One debit through the user service's internal usage API (CONTRACT §7). */
export interface UsageRequest {
  /** The caller's API key or access token, as presented. */
  credential: string;
  productId: number;
  units: number;
  /** Idempotency key: a retry with the same id debits nothing again. */
  requestId: string;
}

export interface UsageGrant {
  accountId: number;
  productId: number;
  /** Credits left in the product's pool after the debit. */
  credits: number;
}

export interface UsageClient {
  /**
   * Debits or throws AppError: unauthenticated (401), credits_exhausted (403), rate_limited,
   * unavailable; a plain Error (a logged 500) when the usage API refuses the gateway's own JWT.
   */
  debit(request: UsageRequest): Promise<UsageGrant>;
  /** Closes the kept-alive connections. */
  close(): Promise<void>;
}

export interface UsageClientOptions {
  userUrl: string;
  /** A service JWT (audience `user`) that is valid now; called once per attempt. */
  signJwt: () => string;
  /** Kept-alive connections to the user service at most (undici Pool). */
  connections: number;
  /**
   * The most a debit waits for the user service, its retries and their pauses included (CONTRACT
   * §1: a fault answers 503 within 5 s): each attempt gets what is left of it, and no retry starts
   * once its pause would use the rest.
   */
  timeoutMs: number;
  /** Extra attempts after a network error or a 5xx, with the same requestId, while `timeoutMs` lasts. */
  retries: number;
}

const isWhole = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min;

/**
 * A 200's body (or a batch item's) as a grant: positive integer ids, credits an integer ≥ 0; its
 * other members are dropped. Read without zod: a coalesced batch checks one per call (zod, with
 * the JSON text each item was turned back into, cost a call more than the rest of its answer).
 */
export function grantOf(body: unknown): UsageGrant | Error {
  const { accountId, productId, credits } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (isWhole(accountId, 1) && isWhole(productId, 1) && isWhole(credits, 0)) return { accountId, productId, credits };
  return new Error(`usage API answered 200 with an unexpected body: ${JSON.stringify(body)?.slice(0, 300) ?? String(body)}`);
}

const RETRYABLE = new Set([500, 502, 503, 504]);

/** `messages` of the usage API's 401 for a refused service JWT (a bad customer credential gets the contract's 401 sentence). */
export const INVALID_SERVICE_TOKEN = 'Invalid service token.';

type Response = Dispatcher.ResponseData;

function retryAfter(response: Response): number | undefined {
  const value = Number(response.headers['retry-after']);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

type Attempt = { kind: 'answer'; response: Response } | { kind: 'unreachable'; error: unknown };

/** A usage API answer, read whole. */
export interface UsageAnswer {
  status: number;
  text: string;
  retryAfter: number | undefined;
  /** Why a 401, 403 or 429 was answered (X-Refusal-Reason, or a batch item's `reason`), passed on to the product's caller. */
  reason?: unknown;
}

/** POSTs to the internal usage API with retries; shared by the single and the coalescing client. */
export interface UsageTransport {
  /** Resolves with the last answer that is not a 5xx, or the last 5xx; throws `unavailable` when no attempt got an answer. */
  post(route: '' | '/batch', body: unknown): Promise<UsageAnswer>;
  close(): Promise<void>;
}

/**
 * The usage API over kept-alive connections (an undici Pool): no connection set-up once the pool
 * is warm, so a debit costs one round trip to the user service (more only when an attempt fails
 * and is retried, with the same body: the requestIds make a retry safe).
 */
export function createUsageTransport(options: UsageClientOptions): UsageTransport {
  const base = new URL(options.userUrl);
  const path = `${base.pathname.replace(/\/+$/, '')}/internal/v1/usage`;
  const pool = new Pool(base.origin, { connections: options.connections });

  const attempt = async (route: string, body: string, timeoutMs: number): Promise<Attempt> => {
    try {
      const response = await pool.request({
        path: `${path}${route}`,
        method: 'POST',
        headers: { authorization: `Bearer ${options.signJwt()}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { kind: 'answer', response };
    } catch (error) {
      return { kind: 'unreachable', error };
    }
  };

  return {
    async post(route, document) {
      const body = JSON.stringify(document);
      const deadline = Date.now() + options.timeoutMs;
      let last: Attempt | undefined;
      for (let round = 0; round <= options.retries; round += 1) {
        if (round > 0) {
          const pause = 100 * 2 ** (round - 1);
          if (deadline - Date.now() <= pause) break;
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
        last = await attempt(route, body, Math.max(deadline - Date.now(), 1));
        if (last.kind === 'answer' && !RETRYABLE.has(last.response.statusCode)) break;
        if (last.kind === 'answer') await last.response.body.dump();
      }
      if (!last || last.kind === 'unreachable') throw new AppError('unavailable', { retryAfterSeconds: 1, cause: last?.error });
      const { response } = last;
      // Read whole in every case: an unread body would keep its connection from the pool.
      const text = await response.body.text().catch(() => '');
      return {
        status: response.statusCode,
        text,
        retryAfter: retryAfter(response),
        reason: response.headers[REFUSAL_HEADER.toLowerCase()],
      };
    },
    close: () => pool.close(),
  };
}

/** The usage API's reason for a refusal, checked before it is passed on; else the status's own. */
function reasonOf(answer: UsageAnswer, otherwise: RefusalReason): RefusalReason {
  return isRefusalReason(answer.reason) ? answer.reason : otherwise;
}

/**
 * A debit's answer as the gateway's outcome: the grant, or the error to throw: AppError
 * unauthenticated (401), credits_exhausted (403), rate_limited, unavailable; a plain Error (a
 * logged 500) for the gateway's own misconfiguration (its JWT refused, a body the API refused).
 */
export function debitOutcome(
  answer: UsageAnswer,
  messages: unknown = (parseJson(answer.text) as { messages?: unknown } | undefined)?.messages,
): UsageGrant | Error {
  switch (answer.status) {
    case 200:
      return grantOf(parseJson(answer.text));
    case 401:
      // Our own JWT was refused: the product is misconfigured, not the customer (a logged 500).
      return messages === INVALID_SERVICE_TOKEN
        ? new Error('usage API refused the service JWT: check SERVICE_JWT_SECRET and the clock of this host')
        : new AppError('unauthenticated', { reason: reasonOf(answer, 'invalid_credential') });
    case 403:
      return new AppError('credits_exhausted', { reason: reasonOf(answer, 'pool_exhausted') });
    case 429:
      return new AppError('rate_limited', { reason: 'rate_limited', retryAfterSeconds: answer.retryAfter ?? 1 });
    default:
      if (RETRYABLE.has(answer.status)) return new AppError('unavailable', { retryAfterSeconds: answer.retryAfter ?? 1 });
      // 400/404/409/422 mean this gateway is misconfigured (product id, body): a logged 500.
      return new Error(`usage API answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
}

/** One request per debit (`POST /internal/v1/usage`). */
export function createUsageClient(options: UsageClientOptions): UsageClient {
  const transport = createUsageTransport(options);
  return {
    async debit(request) {
      const outcome = debitOutcome(await transport.post('', request));
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    close: () => transport.close(),
  };
}
