import { byId, element } from '@platform/page-dom';
import type { BalanceRow, PageConfig } from './api';
import { formatCredits } from './messages';
import { poolsOf, poolStatus, type PoolStatus } from './pools';

const STATUS_TEXT: Record<Exclude<PoolStatus, 'ok'>, string> = {
  empty: 'Empty: API calls are refused',
  low: 'Low: under your alert threshold',
};

/** What the customer can do about an empty or low pool: buy credits where the operator sells them. */
function remedy(status: PoolStatus, config: PageConfig): Node[] {
  if (status === 'ok') return [];
  if (config.topUpUrl) {
    return [element('a', { className: 'pool-action', text: 'Buy credits', attributes: { href: config.topUpUrl, rel: 'noopener' } })];
  }
  return [];
}

/** One card per pool: the credits left, whether it is low or empty (in words and colour), and which products share them. */
export function renderBalance(balance: readonly BalanceRow[], config: PageConfig, threshold: number): void {
  const container = byId('pools');
  container.setAttribute('aria-busy', 'false');
  const pools = poolsOf(balance, config.products);
  if (pools.length === 0) {
    container.replaceChildren(element('p', { text: 'Your account holds no products yet.' }));
    return;
  }
  // At 0 everywhere, the customer came here to start again: say so before the cards.
  const allEmpty = pools.every((pool) => pool.credits === 0);
  const summary = byId('balance-summary');
  summary.hidden = !allEmpty;
  summary.replaceChildren(
    document.createTextNode('Every balance is at 0: API calls are refused until credits are added.'),
    ...(config.topUpUrl
      ? [document.createTextNode(' '), element('a', { text: 'Buy credits', attributes: { href: config.topUpUrl, rel: 'noopener' } })]
      : []),
  );
  container.replaceChildren(
    ...pools.map((pool) => {
      const titleId = `pool-${pool.poolId}`;
      const status = poolStatus(pool.credits, threshold);
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
      const badge = status === 'ok' ? [] : [element('p', { className: `status ${status}`, text: STATUS_TEXT[status] })];
      return element('article', { className: `pool ${status}`, attributes: { 'aria-labelledby': titleId, 'data-status': status } }, [
        element('h3', { text: pool.name, attributes: { id: titleId } }),
        ...badge,
        element('p', { className: 'credits' }, [
          element('span', { className: 'amount', text: formatCredits(pool.credits) }),
          document.createTextNode(pool.credits === 1 ? ' credit left' : ' credits left'),
        ]),
        ...remedy(status, config),
        ...members,
      ]);
    }),
  );
}
