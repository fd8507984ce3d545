import {
  AppError,
  invalidMessage,
  invalidParams,
  isMailboxAddress,
  NUMERIC,
  requiredMessage,
  throwIfInvalid,
  type FieldMessages,
} from '@platform/wire';
import { generateApiKey, hashSecret } from '@platform/credentials';
import type { Product } from './catalogue';
import { MAX_ID, readInteger } from './integer-field';
import type { AccountRecord, ProductBalance, UserQueries, UserStore } from './user-store';

/** Largest single top-up, adjustment or initial credit an operator may give. */
export const MAX_AMOUNT = 1_000_000_000_000;
export const EMAIL_TAKEN = 'An account with this e-mail already exists.';

export interface NewAccount {
  email: string;
  /** Product id -> initial credits of that product's pool. */
  credits: Map<number, number>;
}

/** Path ids that are not account ids name no account: 404. */
export function parseAccountId(raw: string): number {
  const id = NUMERIC.test(raw) ? Number(raw) : 0;
  if (id < 1 || id > MAX_ID) throw new AppError('not_found');
  return id;
}

function parseEmail(raw: unknown, errors: FieldMessages): string | undefined {
  if (raw === undefined || raw === null || raw === '') {
    errors.email = [requiredMessage('email')];
    return undefined;
  }
  if (typeof raw === 'string' && isMailboxAddress(raw)) return raw;
  errors.email = [invalidMessage('email')];
  return undefined;
}

function parseInitialCredits(raw: unknown, errors: FieldMessages): Map<number, number> {
  const credits = new Map<number, number>();
  if (raw === undefined || raw === null) return credits;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    errors.credits = [invalidMessage('credits')];
    return credits;
  }
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const productId = NUMERIC.test(key) ? Number(key) : 0;
    const amount = readInteger(value, { min: 0, max: MAX_AMOUNT });
    if (productId < 1 || productId > MAX_ID) {
      errors.credits = [invalidMessage('credits')];
    } else if (amount.kind !== 'value') {
      errors[`credits.${productId}`] = [invalidMessage(`credits.${productId}`)];
    } else {
      credits.set(productId, amount.value);
    }
  }
  return credits;
}

/** The body of `POST /admin/v1/accounts` (CONTRACT §7, §9); every problem is reported together. */
export function parseNewAccount(body: Record<string, unknown>): NewAccount {
  const errors: FieldMessages = {};
  const email = parseEmail(body.email, errors);
  const credits = parseInitialCredits(body.credits, errors);
  throwIfInvalid(errors);
  return { email: email as string, credits };
}

/** Catalogue products for the named ids; a name outside the catalogue or two of one pool is a 422. */
async function poolsOf(store: UserQueries, credits: Map<number, number>): Promise<Array<{ poolId: number; credits: number }>> {
  const products = new Map((await store.findProducts([...credits.keys()])).map((product): [number, Product] => [product.id, product]));
  const errors: FieldMessages = {};
  const pools = new Map<number, number>();
  for (const [productId, amount] of credits) {
    const product = products.get(productId);
    if (!product) errors[`credits.${productId}`] = [invalidMessage(`credits.${productId}`)];
    else if (pools.has(product.poolId)) errors.credits = [invalidMessage('credits')];
    else pools.set(product.poolId, amount);
  }
  throwIfInvalid(errors);
  return [...pools].map(([poolId, amount]) => ({ poolId, credits: amount }));
}

/**
 * Creates an account with a fresh API key (shown only here) and holds every pool named, each
 * credited through the ledger and the outbox like any other balance change.
 */
export async function createAccount(
  store: UserStore,
  input: NewAccount,
  actor: string,
): Promise<{ account: AccountRecord; apiKey: string }> {
  const pools = await poolsOf(store, input.credits);
  const apiKey = generateApiKey();
  const account = await store.transaction(async (tx) => {
    const created = await tx.insertAccount(input.email);
    if (!created) throw new AppError('conflict', { message: EMAIL_TAKEN });
    const credits = Object.fromEntries(input.credits);
    await tx.audit({ actor, action: 'account.create', accountId: created.id, details: { email: created.email, credits } });
    const keyHash = hashSecret(apiKey);
    await tx.insertApiKey(created.id, keyHash);
    for (const pool of pools) {
      await tx.holdPool(created.id, pool.poolId);
      await tx.changeBalance({ accountId: created.id, poolId: pool.poolId, delta: pool.credits, cause: 'top-up' });
    }
    // CONTRACT §3: the key works for issuance from the moment this answers.
    await tx.recordNewKey(created.id, keyHash);
    return created;
  });
  return { account, apiKey };
}

export async function accountDetails(
  store: UserQueries,
  accountId: number,
): Promise<{ account: AccountRecord; balances: ProductBalance[] }> {
  const account = await store.findAccount(accountId);
  if (!account) throw new AppError('not_found');
  return { account, balances: await store.readBalances(accountId) };
}

export interface CreditChange {
  productId: number;
  /** Positive: top-up; negative: adjustment, clamped at 0. */
  amount: number;
}

/** The body of `POST /admin/v1/accounts/:id/credits`; a negative amount arrives as a JSON number. */
export function parseCreditChange(body: Record<string, unknown>): CreditChange {
  const errors: FieldMessages = {};
  const productId = readInteger(body.productId, { min: 1, max: MAX_ID });
  const amount = readInteger(body.amount, { min: -MAX_AMOUNT, max: MAX_AMOUNT });
  if (productId.kind === 'value' && amount.kind === 'value') return { productId: productId.value, amount: amount.value };
  if (productId.kind !== 'value')
    errors.productId = [productId.kind === 'absent' ? requiredMessage('productId') : invalidMessage('productId')];
  if (amount.kind !== 'value') errors.amount = [amount.kind === 'absent' ? requiredMessage('amount') : invalidMessage('amount')];
  throw invalidParams(errors);
}

/**
 * A top-up or an adjustment of the pool of one product (CONTRACT §5, §7). A product the account
 * does not hold yet becomes held, with its whole pool. Answers the pool's credits afterwards.
 */
export async function addCredits(
  store: UserStore,
  accountId: number,
  body: Record<string, unknown>,
  audit: { actor: string; reason?: string },
): Promise<CreditChange & { credits: number }> {
  if (!(await store.findAccount(accountId))) throw new AppError('not_found');
  const change = parseCreditChange(body);
  const [product] = await store.findProducts([change.productId]);
  if (!product) throw invalidParams({ productId: [invalidMessage('productId')] });
  return store.transaction(async (tx) => {
    const action = change.amount < 0 ? 'credits.adjust' : 'credits.top-up';
    await tx.audit({
      actor: audit.actor,
      action,
      accountId,
      details: { productId: change.productId, amount: change.amount, reason: audit.reason ?? null },
    });
    await tx.holdPool(accountId, product.poolId);
    const result = await tx.changeBalance({
      accountId,
      poolId: product.poolId,
      delta: change.amount,
      cause: change.amount < 0 ? 'adjustment' : 'top-up',
    });
    if (!result.ok) {
      if (result.reason === 'too_large') throw invalidParams({ amount: [invalidMessage('amount')] });
      throw new Error(`balance change failed: ${result.reason}`);
    }
    // CONTRACT §3 (a top-up from 0 allows issuance, an adjustment to 0 refuses it, from this
    // answer on) is a side effect of the write path itself.
    return { ...change, credits: result.credits };
  });
}
