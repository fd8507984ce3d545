import { AppError, invalidMessage, invalidParams, throwIfInvalid, type FieldMessages } from '@platform/wire';
import { generateApiKey, hashSecret } from '@platform/credentials';
import { adminCause, creditsChange, decideCredits, type AccountChange } from './account-change';
import type { Product } from './catalogue';
import type { AccountRecord, ProductBalance, UserQueries, UserStore } from './user-store';

/** Largest single top-up, adjustment or initial credit an operator may give. */
export const MAX_AMOUNT = 1_000_000_000_000;
export const EMAIL_TAKEN = 'An account with this e-mail already exists.';

/** A new account, as the route's schema read it (`NewAccountBody`). */
export interface NewAccount {
  email: string;
  /** Product id -> initial credits of that product's pool. */
  credits: Map<number, number>;
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
  const account = await store.accounts.transaction('account', async (tx) => {
    const created = await tx.insertAccount(input.email);
    if (!created) throw new AppError('conflict', { message: EMAIL_TAKEN });
    // CONTRACT §3: the key works for issuance from the moment this answers.
    const changes: AccountChange[] = [{ kind: 'key-added', accountId: created.id, keyHash: hashSecret(apiKey), active: true }];
    for (const pool of pools) {
      await tx.holdPool(created.id, pool.poolId);
      const decided = decideCredits(await tx.lockPool(created.id, pool.poolId), { cause: 'top-up', amount: pool.credits });
      if (decided.ok) changes.push(...creditsChange(created.id, pool.poolId, decided, { cause: 'top-up' }));
    }
    const credits = Object.fromEntries(input.credits);
    await tx.apply(changes, { actor, action: 'account.create', accountId: created.id, details: { email: created.email, credits } });
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

/** A top-up or adjustment, as the route's schema read it (`CreditChangeBody`). */
export interface CreditChange {
  productId: number;
  /** Positive: top-up; negative: adjustment, clamped at 0. */
  amount: number;
  /** Kept in the audit row. */
  reason?: string | undefined;
}

/**
 * A top-up or an adjustment of the pool of one product (CONTRACT §5, §7). A product the account
 * does not hold yet becomes held, with its whole pool. Answers the pool's credits afterwards.
 * `readChange` reads the change once the account is known: an unknown account is a 404 before
 * a bad change is a 422; a product outside the catalogue is a 422 too.
 */
export async function addCredits(
  store: UserStore,
  accountId: number,
  readChange: () => CreditChange,
  actor: string,
): Promise<{ productId: number; amount: number; credits: number }> {
  if (!(await store.findAccount(accountId))) throw new AppError('not_found');
  const change = readChange();
  const [product] = await store.findProducts([change.productId]);
  if (!product) throw invalidParams({ productId: [invalidMessage('productId')] });
  return store.accounts.transaction('account', async (tx) => {
    const { amount } = change;
    const cause = adminCause(amount);
    await tx.holdPool(accountId, product.poolId);
    const decided = decideCredits(await tx.lockPool(accountId, product.poolId), { cause, amount });
    if (!decided.ok) {
      if (decided.reason === 'too_large') throw invalidParams({ amount: [invalidMessage('amount')] });
      throw new Error(`balance change failed: ${decided.reason}`);
    }
    // CONTRACT §3 (a top-up from 0 allows issuance, an adjustment to 0 refuses it, from this
    // answer on) follows from the change itself (accessEffectOf).
    const action = amount < 0 ? 'credits.adjust' : 'credits.top-up';
    const details = { productId: change.productId, amount, reason: change.reason ?? null };
    await tx.apply(creditsChange(accountId, product.poolId, decided, { cause }), { actor, action, accountId, details });
    return { productId: change.productId, amount, credits: decided.credits };
  });
}
