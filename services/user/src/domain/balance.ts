import { invalidMessage, invalidParams, NUMERIC, type FieldMessages, type ParamValue } from '@platform/common';
import type { Queryable } from '@platform/db';
import { catalogueProduct, productBalances, type PoolCredits, type ProductBalance } from '../store/balances';
import type { UserQueries } from '../store/user-store';
import { MAX_ID } from './integer-field';

/** `productId` of the balance endpoint: absent, or a numeric string; anything else is reported in `errors`. */
export function parseProductFilter(value: ParamValue, errors: FieldMessages): number | undefined {
  if (value.kind === 'absent') return undefined;
  if (value.kind === 'value' && NUMERIC.test(value.value)) {
    const id = Number(value.value);
    if (id <= MAX_ID) return id;
  }
  errors.productId = [invalidMessage('productId')];
  return undefined;
}

/**
 * The account's balance (CONTRACT §4.3): every held product, ordered by id, or only the named
 * one. A product id outside the catalogue is a 422; a catalogue product not held is an empty list.
 */
export async function accountBalance(store: UserQueries, accountId: number, productId: number | undefined): Promise<ProductBalance[]> {
  if (productId === undefined) return store.readBalances(accountId);
  const found = await store.readProductBalance(accountId, productId);
  if (found.product === 'unknown') throw invalidParams({ productId: [invalidMessage('productId')] });
  return found.balance ? [found.balance] : [];
}

/**
 * As accountBalance, from pools already read (the API-key path reads them with the key): every
 * held product, or only the named one; a product id outside the catalogue is a 422.
 */
export async function balanceOfPools(
  db: Queryable,
  pools: readonly PoolCredits[],
  productId: number | undefined,
): Promise<ProductBalance[]> {
  if (productId === undefined) return productBalances(db, pools);
  const product = await catalogueProduct(db, productId);
  if (!product) throw invalidParams({ productId: [invalidMessage('productId')] });
  const pool = pools.find((held) => held.poolId === product.poolId);
  return pool ? [{ productId: product.id, productName: product.name, credits: pool.credits }] : [];
}
