/** One account: its pools (low and empty marked), the refusals it meets now, where its alerts go, its webhook and deliveries. */
import { byId, delivered, deliveryOutcome, element } from '@platform/page-dom';
import type { AccountDetails, AuditRow } from './api';
import { catalogue, poolName } from './catalogue';
import { table, utc } from './dom';
import { statusBadge } from './list-view';

const number = new Intl.NumberFormat('en-US');

interface PoolRow {
  ids: number[];
  credits: number;
}

/** The account's balances grouped by pool (members of one pool show the same credits). */
function poolsOf(account: AccountDetails): PoolRow[] {
  const known = new Map(catalogue().map((product) => [product.id, product.pool]));
  const pools = new Map<number, PoolRow>();
  for (const item of account.balances) {
    const pool = known.get(item.product_id) ?? [item.product_id];
    const key = pool[0] ?? item.product_id;
    if (!pools.has(key)) pools.set(key, { ids: pool, credits: item.credits });
  }
  return [...pools.values()];
}

function mark(credits: number, threshold: number): HTMLElement {
  if (credits === 0) return element('span', { className: 'badge disabled', text: 'Empty' });
  if (credits < threshold) return element('span', { className: 'badge low', text: 'Low' });
  return element('span', { className: 'badge', text: 'OK' });
}

/** What the customer meets when calling now, as the refusal reasons say it (CONTRACT §2). */
function refusals(account: AccountDetails, pools: PoolRow[], lastRotation: AuditRow | undefined): string[] {
  const said: string[] = [];
  if (account.disabled) said.push('Disabled: its key and every token are refused (account_disabled) until it is enabled.');
  if (pools.length > 0 && pools.every((pool) => pool.credits === 0))
    said.push('Every pool is at 0: new tokens are refused (no_credits) until credits are added.');
  else
    for (const pool of pools.filter((p) => p.credits === 0))
      said.push(`${poolName(pool.ids)} is at 0: its products refuse calls (pool_exhausted).`);
  if (lastRotation)
    said.push(`Key replaced at ${utc(lastRotation.at)} by ${lastRotation.actor}: the earlier key is refused (key_replaced).`);
  return said;
}

function renderNotifications(account: AccountDetails): void {
  const { notifications: settings } = account;
  const low = settings.lowBalanceAlert.enabled ? `on, below ${number.format(settings.lowBalanceAlert.threshold)} credits` : 'off';
  const { webhook } = settings;
  const webhookText =
    webhook === null
      ? 'none set'
      : `${webhook.url} · ${
          webhook.enabled
            ? 'enabled'
            : webhook.disabledReason === 'gone'
              ? 'turned off: the endpoint answered 410 Gone'
              : webhook.disabledReason === 'failing'
                ? 'turned off: every delivery failed for 5 days'
                : 'paused by the customer'
        }`;
  byId('account-settings').replaceChildren(
    ...[
      ['Alerts go to', settings.email],
      ['Low-balance e-mail', low],
      ['Zero-balance e-mail', settings.zeroBalanceAlert.enabled ? 'on' : 'off'],
      ['Webhook', webhookText],
    ].flatMap(([term, value]) => [element('dt', { text: term ?? '' }), element('dd', { text: value ?? '' })]),
  );
  const failed = account.webhookDeliveries.filter((delivery) => !delivered(delivery));
  byId('deliveries-summary').textContent =
    account.webhookDeliveries.length === 0
      ? 'No webhook delivery yet.'
      : `${failed.length} of the last ${account.webhookDeliveries.length} attempts failed.`;
  byId('deliveries').replaceChildren(
    account.webhookDeliveries.length === 0
      ? document.createTextNode('')
      : table(
          'Last webhook deliveries, newest first',
          ['When', 'Event', 'Result', 'Next retry'],
          account.webhookDeliveries.map((delivery) => [
            utc(delivery.attemptedAt),
            delivery.type,
            deliveryOutcome(delivery),
            delivery.nextRetryAt === null ? '—' : utc(delivery.nextRetryAt),
          ]),
          [0, 1, 2, 3],
        ),
  );
}

export function renderAccount(account: AccountDetails, lastRotation: AuditRow | undefined): void {
  byId('account-title').replaceChildren(`${account.email} `, statusBadge(account.disabled));
  byId('account-facts').textContent = `Account ${account.id} · created ${utc(account.createdAt)}`;
  const threshold = account.notifications.lowBalanceAlert.threshold;
  const pools = poolsOf(account);
  const said = refusals(account, pools, lastRotation);
  const box = byId('account-refusals');
  box.hidden = said.length === 0;
  byId('account-refusal-list').replaceChildren(...said.map((text) => element('li', { text })));
  const rows = pools.map((pool) => [
    poolName(pool.ids),
    catalogue()
      .filter((product) => pool.ids.includes(product.id))
      .map((product) => product.name)
      .join(', ') || String(pool.ids[0]),
    number.format(pool.credits),
    mark(pool.credits, threshold),
  ]);
  byId('balances').replaceChildren(
    rows.length === 0
      ? element('p', { text: 'This account holds no product yet.', className: 'help' })
      : table(
          `Credits per pool; low means under the account's alert threshold (${number.format(threshold)})`,
          ['Pool', 'Products', 'Credits', 'State'],
          rows,
          [0, 1, 3],
        ),
  );
  byId('balances-total').textContent =
    `${number.format(pools.reduce((sum, pool) => sum + pool.credits, 0))} credits in ${pools.length} pool${pools.length === 1 ? '' : 's'}.`;
  const toggle = byId<HTMLButtonElement>('toggle-disabled');
  toggle.textContent = account.disabled ? 'Enable account…' : 'Disable account…';
  toggle.className = account.disabled ? 'button primary' : 'button danger';
  renderNotifications(account);
}
