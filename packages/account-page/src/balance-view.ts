import type { BalanceRow, CatalogueProduct } from './api';
import { byId, element } from './dom';
import { formatCredits } from './messages';
import { poolsOf } from './pools';

/** One card per pool: the credits left, and which products share them. */
export function renderBalance(balance: readonly BalanceRow[], catalogue: readonly CatalogueProduct[]): void {
  const container = byId('pools');
  container.setAttribute('aria-busy', 'false');
  const pools = poolsOf(balance, catalogue);
  if (pools.length === 0) {
    container.replaceChildren(element('p', { text: 'Your account holds no products yet. Contact sales to add credits.' }));
    return;
  }
  container.replaceChildren(
    ...pools.map((pool) => {
      const titleId = `pool-${pool.poolId}`;
      const members =
        pool.products.length > 1
          ? [
              element('p', { className: 'shared', text: `Shared by ${pool.products.length} products:` }),
              element(
                'ul',
                { className: 'products' },
                pool.products.map((name) => element('li', { text: name })),
              ),
            ]
          : [element('p', { className: 'shared', text: 'Used by this product only.' })];
      return element('article', { className: `pool${pool.credits === 0 ? ' empty' : ''}`, attributes: { 'aria-labelledby': titleId } }, [
        element('h3', { text: pool.name, attributes: { id: titleId } }),
        element('p', { className: 'credits' }, [
          element('span', { className: 'amount', text: formatCredits(pool.credits) }),
          document.createTextNode(pool.credits === 1 ? ' credit left' : ' credits left'),
        ]),
        ...members,
      ]);
    }),
  );
}
