import { createHash } from 'node:crypto';
import { AppError, invalidMessage, requiredMessage, throwIfInvalid, type FieldMessages } from '@platform/common';
import type { Product } from '../store/catalogue';
import type { UsageAnswer } from '../store/usage-requests';
import type { UsageQueries, UsageStore } from '../store/usage-store';
import { MAX_ID, readInteger } from './integer-field';

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

/** Who is debited: the account behind the presented credential, and that credential's digest. */
export interface UsagePayer {
  accountId: number;
  secretHash: string;
}

function parseRequestId(raw: unknown, errors: FieldMessages): string | undefined {
  if (raw === undefined || raw === null || raw === '') {
    errors.requestId = [requiredMessage('requestId')];
    return undefined;
  }
  // Control characters (NUL above all, which Postgres text cannot hold) are refused with the rest.
  if (typeof raw === 'string' && raw.length <= MAX_REQUEST_ID_LENGTH && !/\p{Cc}/u.test(raw)) return raw;
  errors.requestId = [invalidMessage('requestId')];
  return undefined;
}

/**
 * The body of `POST /internal/v1/usage` after the credential (CONTRACT §7, §9): `productId` a
 * catalogue id (numeric strings allowed), `units` 1–10,000 (default 1), `requestId` a non-empty
 * string of at most 200 characters. Every problem is reported together (422).
 */
export async function parseUsageRequest(store: UsageQueries, body: Record<string, unknown>): Promise<UsageRequest> {
  const errors: FieldMessages = {};
  const productId = readInteger(body.productId, { min: 1, max: MAX_ID });
  const units = readInteger(body.units, { min: 1, max: MAX_UNITS });
  const requestId = parseRequestId(body.requestId, errors);
  if (productId.kind === 'absent') errors.productId = [requiredMessage('productId')];
  if (productId.kind === 'invalid') errors.productId = [invalidMessage('productId')];
  if (units.kind === 'invalid') errors.units = [invalidMessage('units')];
  const [product] = productId.kind === 'value' ? await store.findProducts([productId.value]) : [];
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

/**
 * Debits `units` from the pool of the product (CONTRACT §5, §7), all or nothing, in one
 * transaction with the requestId's record: the first request with a requestId debits (or is
 * refused) and its answer is stored; a replay with the same body gets that answer and debits
 * nothing; a replay with another body is a conflict. A product the account does not hold has
 * no credits: exhausted.
 */
export async function recordUsage(
  store: UsageStore,
  payer: UsagePayer,
  request: UsageRequest,
): Promise<{ answer: UsageAnswer; replayed: boolean }> {
  const digest = digestOf(payer, request);
  return store.transaction(async (tx) => {
    const claim = await tx.claimUsageRequest(request.requestId, digest);
    if (claim.kind === 'replay') {
      if (claim.digest !== digest) throw new AppError('conflict', { message: REQUEST_ID_REUSED });
      return { answer: claim.answer, replayed: true };
    }
    const result = await tx.changeBalance({
      accountId: payer.accountId,
      poolId: request.product.poolId,
      delta: -request.units,
      cause: 'usage',
      requestId: request.requestId,
      productId: request.product.id,
    });
    if (!result.ok && result.reason === 'too_large') throw new Error('a debit cannot make a pool too large');
    const answer: UsageAnswer = result.ok
      ? { outcome: 'granted', accountId: payer.accountId, productId: request.product.id, credits: result.credits }
      : { outcome: 'exhausted' };
    await tx.saveUsageAnswer(request.requestId, answer);
    return { answer, replayed: false };
  });
}
