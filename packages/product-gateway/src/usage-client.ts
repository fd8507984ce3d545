import { Pool, type Dispatcher } from 'undici';
import { z } from 'zod';
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
  timeoutMs: number;
  /** Extra attempts after a network error or a 5xx, with the same requestId. */
  retries: number;
}

const grantSchema = z.object({
  accountId: z.number().int().positive(),
  productId: z.number().int().positive(),
  credits: z.number().int().min(0),
});

const RETRYABLE = new Set([500, 502, 503, 504]);

/** `messages` of the usage API's 401 for a refused service JWT (a bad customer credential gets the contract's 401 sentence). */
export const INVALID_SERVICE_TOKEN = 'Invalid service token.';

type Response = Dispatcher.ResponseData;

/** The usage API's refusal reason, passed on to the customer when it is one of the contract's. */
function refusalReason(response: Response, otherwise: RefusalReason): RefusalReason {
  const value = response.headers[REFUSAL_HEADER.toLowerCase()];
  return isRefusalReason(value) ? value : otherwise;
}

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

/**
 * The usage API over kept-alive connections (an undici Pool): one request per debit, no
 * connection set-up once the pool is warm, so a product call costs one round trip to the
 * user service (more only when an attempt fails and is retried).
 */
export function createUsageClient(options: UsageClientOptions): UsageClient {
  const base = new URL(options.userUrl);
  const path = `${base.pathname.replace(/\/+$/, '')}/internal/v1/usage`;
  const pool = new Pool(base.origin, { connections: options.connections });

  const attempt = async (request: UsageRequest): Promise<Attempt> => {
    try {
      const response = await pool.request({
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${options.signJwt()}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      return { kind: 'answer', response };
    } catch (error) {
      return { kind: 'unreachable', error };
    }
  };

  return {
    async debit(request) {
      let last: Attempt | undefined;
      for (let round = 0; round <= options.retries; round += 1) {
        if (round > 0) await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (round - 1)));
        last = await attempt(request);
        if (last.kind === 'answer' && !RETRYABLE.has(last.response.statusCode)) break;
        if (last.kind === 'answer') await last.response.body.dump();
      }
      if (!last || last.kind === 'unreachable') throw new AppError('unavailable', { retryAfterSeconds: 1, cause: last?.error });
      const { response } = last;
      // Read whole in every case: an unread body would keep its connection from the pool.
      const text = await response.body.text().catch(() => '');
      switch (response.statusCode) {
        case 200: {
          const grant = grantSchema.safeParse(parseJson(text));
          if (!grant.success) throw new Error(`usage API answered 200 with an unexpected body: ${grant.error.message}`);
          return grant.data;
        }
        case 401: {
          const refused = parseJson(text) as { messages?: unknown } | undefined;
          // Our own JWT was refused: the product is misconfigured, not the customer (a logged 500).
          if (refused?.messages === INVALID_SERVICE_TOKEN) {
            throw new Error('usage API refused the service JWT: check SERVICE_JWT_SECRET and the clock of this host');
          }
          throw new AppError('unauthenticated', { reason: refusalReason(response, 'invalid_credential') });
        }
        case 403:
          throw new AppError('credits_exhausted', { reason: refusalReason(response, 'pool_exhausted') });
        case 429:
          throw new AppError('rate_limited', { reason: 'rate_limited', retryAfterSeconds: retryAfter(response) ?? 1 });
        default:
          if (RETRYABLE.has(response.statusCode)) throw new AppError('unavailable', { retryAfterSeconds: retryAfter(response) ?? 1 });
          // 400/404/409/422 mean this gateway is misconfigured (product id, body): a logged 500.
          throw new Error(`usage API answered ${response.statusCode}: ${text.slice(0, 300)}`);
      }
    },
    close: () => pool.close(),
  };
}
