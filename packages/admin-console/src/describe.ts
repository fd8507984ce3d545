/** Audit details and ledger causes as sentences an operator reads (never raw JSON). */
import { productName } from './catalogue';

const number = new Intl.NumberFormat('en-US');

function text(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object')
    return Object.entries(value)
      .map(([name, inner]) => `${name} ${text(inner)}`)
      .join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function creditsList(credits: unknown): string {
  if (typeof credits !== 'object' || credits === null) return '';
  const parts = Object.entries(credits).map(([id, amount]) => `${productName(Number(id))} ${number.format(Number(amount))}`);
  return parts.length === 0 ? '' : ` with ${parts.join(', ')} credits`;
}

const reasonOf = (details: Record<string, unknown>) => (typeof details.reason === 'string' ? ` Reason: “${details.reason}”.` : '');

/** `{"productId":24,"amount":500,"reason":"goodwill"}` → `Added 500 credits to Bulk WHOIS API's pool. Reason: “goodwill”.` */
export function describeAudit(action: string, details: Record<string, unknown>): string {
  const amount = Number(details.amount);
  const product = productName(Number(details.productId));
  switch (action) {
    case 'account.create':
      return `Created the account for ${text(details.email)}${creditsList(details.credits)}.`;
    case 'credits.top-up':
      return `Added ${number.format(amount)} credits to ${product}'s pool.${reasonOf(details)}`;
    case 'credits.adjust':
      return `Took ${number.format(Math.abs(amount))} credits from ${product}'s pool.${reasonOf(details)}`;
    case 'account.update': {
      const parts: string[] = [];
      if (details.disabled === true) parts.push('Disabled the account');
      if (details.disabled === false) parts.push('Enabled the account');
      if (typeof details.email === 'string') parts.push(`Changed the e-mail to ${details.email}`);
      return parts.length === 0 ? `Changed ${text(details)}.` : `${parts.join('; ')}.`;
    }
    case 'api-key.rotate':
      return 'Replaced the API key: the old key and its tokens stopped working.';
    case 'category.create':
      return `Created category ${text(details.id)} “${text(details.name)}” under ${text(details.parent)}.`;
    case 'category.delete':
      return `Deleted category ${text(details.id)}.`;
    default:
      return Object.keys(details).length === 0 ? '—' : `${text(details)}.`;
  }
}

export const ACTION_NAMES: Record<string, string> = {
  'account.create': 'Account created',
  'account.update': 'Account changed',
  'credits.top-up': 'Top-up',
  'credits.adjust': 'Adjustment',
  'api-key.rotate': 'Key replaced',
  'category.create': 'Category created',
  'category.delete': 'Category deleted',
};
