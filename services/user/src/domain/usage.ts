import { createHash } from 'node:crypto';
import { AppError, invalidMessage, requiredMessage, throwIfInvalid, type FieldMessages } from '@platform/wire';
import type { Product } from './catalogue';
import { MAX_ID, readInteger } from './integer-field';
import type { RecentAnswers } from './recent-answers';
import type { DebitBatcher } from './usage-batcher';

/** Units one usage request may debit (CONTRACT §7). */
export const MAX_UNITS = 10_000;
export const MAX_REQUEST_ID_LENGTH = 200;
export const REQUEST_ID_REUSED = 'The request id was already used for a different request.';

/** A usage request after validation: the catalogue product, the units, the idempotency key. */
export interface UsageRequest {
  product: Product;
  units: number;
  requestId: string;
}

/** A catalogue product by id (undefined: no such product). */
export type ProductLookup = (productId: number) => Promise<Product | undefined>;

/** Who is debited: the account behind the presented credential, and that credential's digest. */
export interface UsagePayer {
  accountId: number;
  secretHash: string;
}

// A UTF-16 half without its other half: Postgres (UTF-8) cannot hold it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function parseRequestId(raw: unknown, errors: FieldMessages): string | undefined {
  if (raw === undefined || raw === null || raw === '') {
    errors.requestId = [requiredMessage('requestId')];
    return undefined;
  }
  // Control characters (NUL above all, which Postgres text cannot hold) are refused with the rest.
  // A lone surrogate becomes U+FFFD, as UTF-8 encoding always stored it; the id is then the same
  // string in memory (batching, replays) as in the table.
  if (typeof raw === 'string' && raw.length <= MAX_REQUEST_ID_LENGTH && !/\p{Cc}/u.test(raw)) return raw.replace(LONE_SURROGATE, '\uFFFD');
  errors.requestId = [invalidMessage('requestId')];
  return undefined;
}

/**
 * The body of `POST /internal/v1/usage` after the credential (CONTRACT §7, §9): `productId` a
 * catalogue id (numeric strings allowed), `units` 1–10,000 (default 1), `requestId` a non-empty
 * string of at most 200 characters. Every problem is reported together (422).
 */
export async function parseUsageRequest(products: ProductLookup, body: Record<string, unknown>): Promise<UsageRequest> {
  const errors: FieldMessages = {};
  const productId = readInteger(body.productId, { min: 1, max: MAX_ID });
  const units = readInteger(body.units, { min: 1, max: MAX_UNITS });
  const requestId = parseRequestId(body.requestId, errors);
  if (productId.kind === 'absent') errors.productId = [requiredMessage('productId')];
  if (productId.kind === 'invalid') errors.productId = [invalidMessage('productId')];
  if (units.kind === 'invalid') errors.units = [invalidMessage('units')];
  const product = productId.kind === 'value' ? await products(productId.value) : undefined;
  if (productId.kind === 'value' && !product) errors.productId = [invalidMessage('productId')];
  throwIfInvalid(errors);
  return { product: product as Product, units: units.kind === 'value' ? units.value : 1, requestId: requestId as string };
}

/** Same credential, product and units: a replay. Anything else under the same requestId is a conflict. */
function digestOf(payer: UsagePayer, request: UsageRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([payer.secretHash, request.product.id, request.units]))
    .digest('hex');
}

/** The answer to a usage request: the debit was granted (and is committed), or the pool could not pay. */
export type UsageAnswer = { outcome: 'granted'; accountId: number; productId: number; credits: number } | { outcome: 'exhausted' };

export interface UsageRecorder {
  /**
   * Debits `units` from the pool of the product (CONTRACT §5, §7, §9), all or nothing, and
   * resolves once the debit is committed: the first request with a requestId debits (or is
   * refused, which leaves no trace); a replay with the same body gets the first answer and
   * debits nothing; a replay with another body is a conflict (409). A product the account
   * does not hold has no credits: exhausted.
   */
  record(payer: UsagePayer, request: UsageRequest): Promise<{ answer: UsageAnswer; replayed: boolean }>;
}

export interface UsageRecorderOptions {
  /** Where debits wait for their batch. */
  batcher: DebitBatcher;
  /** Answers already committed, for replays that need no batch. */
  answers: RecentAnswers;
}

export function createUsageRecorder({ batcher, answers }: UsageRecorderOptions): UsageRecorder {
  return {
    async record(payer, request) {
      const digest = digestOf(payer, request);
      const kept = answers.get(request.requestId);
      if (kept) {
        if (kept.digest !== digest) throw new AppError('conflict', { message: REQUEST_ID_REUSED });
        return {
          answer: { outcome: 'granted', accountId: kept.accountId, productId: kept.productId, credits: kept.credits },
          replayed: true,
        };
      }
      const outcome = await batcher.submit({
        requestId: request.requestId,
        digest,
        accountId: payer.accountId,
        poolId: request.product.poolId,
        productId: request.product.id,
        units: request.units,
      });
      switch (outcome.kind) {
        case 'granted':
        case 'replayed':
          answers.set(request.requestId, { ...outcome.answer, digest });
          return { answer: { outcome: 'granted', ...outcome.answer }, replayed: outcome.kind === 'replayed' };
        case 'exhausted':
          return { answer: { outcome: 'exhausted' }, replayed: false };
        case 'conflict':
          throw new AppError('conflict', { message: REQUEST_ID_REUSED });
      }
    },
  };
}
