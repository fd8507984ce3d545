import { hash } from 'node:crypto';
import { AppError, invalidMessage, invalidParams } from '@platform/wire';
import type { Product } from './catalogue';
import { keptDigests, type RecentAnswers } from '../speed';
import type { DebitBatcher } from './usage-batcher';
import type { StoredAnswer } from './usage-reads';

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

/**
 * The catalogue product of a usage request (CONTRACT §7): an id the route's schema accepted that
 * names no product is a 422 on `productId`, as a malformed one is. Undefined when the schema
 * refused the id (its message is the schema's).
 */
export async function usageProduct(products: ProductLookup, productId: number | undefined): Promise<Product | undefined> {
  if (productId === undefined) return undefined;
  const product = await products(productId);
  if (!product) throw invalidParams({ productId: [invalidMessage('productId')] });
  return product;
}

/** Triples whose digest is kept (speed.ts keptDigests): about 200 bytes each. */
const KEPT_DIGESTS = 10_000;
const digestOfTriple = keptDigests(KEPT_DIGESTS, (secretHash, productId, units) =>
  hash('sha256', JSON.stringify([secretHash, productId, units]), 'hex'),
);

/** Same credential, product and units: a replay. Anything else under the same requestId is a conflict. */
function digestOf(payer: UsagePayer, request: UsageRequest): string {
  return digestOfTriple(payer.secretHash, request.product.id, request.units);
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
  answers: RecentAnswers<StoredAnswer>;
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
        case 'replayed': {
          const { accountId, productId, credits } = outcome.answer;
          answers.set(request.requestId, { accountId, productId, credits, digest });
          return { answer: { outcome: 'granted', accountId, productId, credits }, replayed: outcome.kind === 'replayed' };
        }
        case 'exhausted':
          return { answer: { outcome: 'exhausted' }, replayed: false };
        case 'conflict':
          throw new AppError('conflict', { message: REQUEST_ID_REUSED });
      }
    },
  };
}
