import { validateDocument } from '@platform/kernel';
import { ruleMessages } from '@platform/kernel';
import { AppError, invalidParams, isRefusalStatus, renderError, type FieldMessages, type RefusalReason } from '@platform/wire';
import type { CredentialVerifier } from '@platform/credentials';
import type { Product } from '../domain/catalogue';
import { usageProduct, type ProductLookup, type UsagePayer, type UsageRecorder, type UsageRequest } from '../domain/usage';
import { plainUsageBody, UsageBody } from './usage-body';

/**
 * One item's answer in a usage batch (CONTRACT §7.1): the single route's 200 body, or its
 * refusal's status and messages; a 401 or 403 also says why (`reason`, the single route's
 * X-Refusal-Reason, CONTRACT §2), since one answer's header cannot speak for each item.
 */
export type BatchItemResult =
  | { status: 200; accountId: number; productId: number; credits: number }
  | { status: number; messages: string | FieldMessages; reason?: RefusalReason };

/** An item checked as the single route checks its request: who pays for what, or why it is refused. */
type ItemCheck = { payer: UsagePayer; request: UsageRequest } | { refused: AppError };

/** The item form of a refusal: its status and the `messages` of the single route's body, with its reason (looked up only now, as the single route does). */
async function itemRefusal(error: AppError): Promise<BatchItemResult> {
  const explained = error.explain ? await error.explain().catch(() => undefined) : undefined;
  const { status, body, reason } = renderError(error, 'codeMessages', explained);
  const messages = (body as { messages: string | FieldMessages }).messages;
  return isRefusalStatus(status) && reason !== undefined ? { status, messages, reason } : { status, messages };
}

const asObject = (raw: unknown): Record<string, unknown> | undefined =>
  raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;

/** A credential's check as an item takes it: the payer, or the 401 that is the item's own. */
type PayerCheck = Promise<UsagePayer | AppError>;

/** A product id's rule as `usageProduct` and `ruleMessages` decide it: the product, or the messages it adds to an item's. */
interface ProductRule {
  found: Product | undefined;
  errors: FieldMessages;
}

/** An item's body read as the single route reads it (the schema's messages in `errors`), before the catalogue's rule. */
interface ReadItem {
  errors: FieldMessages;
  outcome: ReturnType<typeof validateDocument<typeof UsageBody>>;
  productId: number | undefined;
}

function readItem(raw: unknown): ReadItem {
  const errors: FieldMessages = {};
  const plain = plainUsageBody(raw);
  const outcome = plain === undefined ? validateDocument(UsageBody, raw, errors) : { ok: true as const, value: plain };
  const accepted = outcome.ok ? outcome.value : (outcome.accepted as { productId?: number });
  return { errors, outcome, productId: accepted.productId };
}

/** The catalogue's rule for a product id (a failure of the lookup itself rejects). */
async function productRule(product: ProductLookup, productId: number | undefined): Promise<ProductRule> {
  const errors: FieldMessages = {};
  const found = await ruleMessages(() => usageProduct(product, productId), errors);
  return { found, errors };
}

/**
 * The checks of one batch, each asked once per distinct value. SPEED: a product app's batch
 * repeats its customers' keys and its one product, so a key is checked (hashed, looked up) once
 * per batch and a product's rule decided once, and an item then costs no promise for either (the
 * rule's promises per item were 5 % of the batch route's allocations; batch-one-pool, one key
 * per batch, went from 18 to 9–13 µs of service CPU per debit: docs/benchmarks.md, "Batch debits
 * profiled and changed, 6 Dec 2026").
 */
function batchChecks(credentials: CredentialVerifier) {
  const payers = new Map<string | undefined, PayerCheck>();
  return {
    /** The item's credential checked (401 as a value); a failure that is not the item's own (the access store down) rejects. */
    payer(raw: unknown): PayerCheck {
      const credential = asObject(raw)?.credential;
      const secret = typeof credential === 'string' ? credential : undefined;
      let check = payers.get(secret);
      if (check === undefined) {
        check = credentials.require(secret).catch((error: unknown) => {
          if (error instanceof AppError && error.code === 'unauthenticated') return error;
          throw error;
        });
        payers.set(secret, check);
      }
      return check;
    },
  };
}

/**
 * The single route's checks, in its order: the credential (401), then the body with the
 * catalogue's rule (422, every problem together; the schema's messages first, as ruleMessages
 * keeps them).
 */
function checkItem(read: ReadItem, payer: UsagePayer | AppError, rules: ReadonlyMap<number | undefined, ProductRule>): ItemCheck {
  if (payer instanceof AppError) return { refused: payer };
  // Decided for every product id of an item whose credential passed (meterItems).
  const rule = rules.get(read.productId) as ProductRule;
  const { errors, outcome } = read;
  for (const [field, messages] of Object.entries(rule.errors)) errors[field] ??= messages;
  if (!outcome.ok || !rule.found || Object.keys(errors).length > 0) return { refused: invalidParams(errors) };
  return { payer, request: { product: rule.found, units: outcome.value.units ?? 1, requestId: outcome.value.requestId } };
}

/**
 * Meters a batch's items (CONTRACT §7.1), each exactly as one `POST /internal/v1/usage`: every
 * item is checked first (a failure that is not the item's own, the access store down, is
 * thrown: the whole request answers it, as the single route would); then the accepted ones go to
 * the one recorder (the group commit, the requestIds shared with the single route) in the items'
 * order, in one turn of the event loop, so that the debits of one pool are queued, and decided,
 * in that order. A reused requestId is the item's 409. Resolves once every debit has committed; a
 * failure of the commit itself (503) rejects, and the whole request answers it (a retry with the
 * same requestIds replays what did commit).
 */
export async function meterItems(
  items: readonly unknown[],
  deps: { credentials: CredentialVerifier; product: ProductLookup; recorder: UsageRecorder },
): Promise<BatchItemResult[]> {
  const checks = batchChecks(deps.credentials);
  const payers = await Promise.all(items.map((item) => checks.payer(item)));
  const read = items.map(readItem);
  const rules = new Map<number | undefined, ProductRule>();
  // Only for items whose credential passed: the single route answers a 401 without the catalogue.
  for (const [index, item] of read.entries()) {
    if (!(payers[index] instanceof AppError) && !rules.has(item.productId))
      rules.set(item.productId, await productRule(deps.product, item.productId));
  }
  const checked = read.map((item, index) => checkItem(item, payers[index] as UsagePayer | AppError, rules));
  const results = checked.map(async (check): Promise<BatchItemResult> => {
    if ('refused' in check) return itemRefusal(check.refused);
    try {
      const { answer } = await deps.recorder.record(check.payer, check.request);
      if (answer.outcome === 'exhausted') return itemRefusal(new AppError('credits_exhausted'));
      return { status: 200, accountId: answer.accountId, productId: answer.productId, credits: answer.credits };
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return itemRefusal(error);
      throw error;
    }
  });
  return Promise.all(results);
}
