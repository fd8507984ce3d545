import { invalidMessage, invalidParams } from '@platform/wire';
import type { CatalogueReads } from './catalogue';
import type { PoolCredits, ProductBalance } from './user-store';

/** The hot reads of the balance endpoint, each batched with those of concurrent requests. */
export interface BalanceReads {
  /**
   * The account of the active key with this hash (a SHA-256 hex digest) and the account's pools,
   * in one round trip; undefined when no active key has it. Shared with concurrent callers of the
   * same key: read it, do not change it.
   */
  poolsByKey(keyHash: string): Promise<{ readonly accountId: number; readonly pools: readonly PoolCredits[] } | undefined>;
  /** The pools an account holds, with their credits (shared with concurrent callers: read only). */
  poolsOf(accountId: number): Promise<readonly PoolCredits[]>;
  /** Every product of the given pools with its pool's credits, ordered by product id. */
  productBalances(pools: readonly PoolCredits[]): Promise<ProductBalance[]>;
}

/**
 * The account's balance (CONTRACT §4.3) from pools already read (the API-key path reads them
 * with the key): every held product, ordered by id, or only the named one. A product id outside
 * the catalogue is a 422; a catalogue product not held is an empty list.
 */
export async function balanceOfPools(
  reads: { balances: BalanceReads; catalogue: CatalogueReads },
  pools: readonly PoolCredits[],
  productId: number | undefined,
): Promise<ProductBalance[]> {
  if (productId === undefined) return reads.balances.productBalances(pools);
  const product = await reads.catalogue.product(productId);
  if (!product) throw invalidParams({ productId: [invalidMessage('productId')] });
  const pool = pools.find((held) => held.poolId === product.poolId);
  return pool ? [{ productId: product.id, productName: product.name, credits: pool.credits }] : [];
}
