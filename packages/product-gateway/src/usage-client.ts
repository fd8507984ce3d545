import { z } from 'zod';
import { AppError } from '@platform/common';

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
}

export interface UsageClientOptions {
  userUrl: string;
  /** A fresh service JWT (audience `user`) per call. */
  signJwt: () => string;
  fetch: typeof fetch;
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

function retryAfter(response: Response): number | undefined {
  const value = Number(response.headers.get('retry-after'));
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

type Attempt = { kind: 'answer'; response: Response } | { kind: 'unreachable'; error: unknown };

export function createUsageClient(options: UsageClientOptions): UsageClient {
  const url = `${options.userUrl.replace(/\/+$/, '')}/internal/v1/usage`;

  const attempt = async (request: UsageRequest): Promise<Attempt> => {
    try {
      const response = await options.fetch(url, {
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
        if (last.kind === 'answer' && !RETRYABLE.has(last.response.status)) break;
        if (last.kind === 'answer') await last.response.body?.cancel();
      }
      if (!last || last.kind === 'unreachable') throw new AppError('unavailable', { retryAfterSeconds: 1, cause: last?.error });
      const { response } = last;
      switch (response.status) {
        case 200: {
          const grant = grantSchema.safeParse(await response.json().catch(() => undefined));
          if (!grant.success) throw new Error(`usage API answered 200 with an unexpected body: ${grant.error.message}`);
          return grant.data;
        }
        case 401: {
          const refused = (await response.json().catch(() => undefined)) as { messages?: unknown } | undefined;
          // Our own JWT was refused: the product is misconfigured, not the customer (a logged 500).
          if (refused?.messages === INVALID_SERVICE_TOKEN) {
            throw new Error('usage API refused the service JWT: check SERVICE_JWT_SECRET and the clock of this host');
          }
          throw new AppError('unauthenticated');
        }
        case 403:
          throw new AppError('credits_exhausted');
        case 429:
          throw new AppError('rate_limited', { retryAfterSeconds: retryAfter(response) ?? 1 });
        default:
          if (RETRYABLE.has(response.status)) throw new AppError('unavailable', { retryAfterSeconds: retryAfter(response) ?? 1 });
          // 400/404/409/422 mean this gateway is misconfigured (product id, body): a logged 500.
          throw new Error(`usage API answered ${response.status}: ${(await response.text().catch(() => '')).slice(0, 300)}`);
      }
    },
  };
}
