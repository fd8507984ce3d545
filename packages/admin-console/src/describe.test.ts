import { setCatalogue } from './catalogue';
import { describeAudit } from './describe';

beforeAll(() => {
  setCatalogue([
    { id: 1, name: 'WHOIS API', pool: [1, 24] },
    { id: 14, name: 'Domain Research Suite', pool: [14] },
    { id: 24, name: 'Bulk WHOIS API', pool: [1, 24] },
  ]);
});

describe('audit details as sentences', () => {
  it('when a top-up, an adjustment or a creation is described, then products are named and no JSON shows', () => {
    expect(describeAudit('credits.top-up', { productId: 24, amount: 500, reason: 'goodwill' })).toBe(
      "Added 500 credits to Bulk WHOIS API's pool. Reason: “goodwill”.",
    );
    expect(describeAudit('credits.adjust', { productId: 1, amount: -1200, reason: 'refund' })).toBe(
      "Took 1,200 credits from WHOIS API's pool. Reason: “refund”.",
    );
    expect(describeAudit('account.create', { email: 'a@b.test', credits: { 1: 2000, 14: 300 } })).toBe(
      'Created the account for a@b.test with WHOIS API 2,000, Domain Research Suite 300 credits.',
    );
  });

  it('when an update, a rotation or an unknown action is described, then each reads as text', () => {
    expect(describeAudit('account.update', { disabled: true })).toBe('Disabled the account.');
    expect(describeAudit('account.update', { email: 'new@b.test' })).toBe('Changed the e-mail to new@b.test.');
    expect(describeAudit('api-key.rotate', {})).toMatch(/^Replaced the API key/);
    expect(describeAudit('something.else', { a: { b: 1 } })).toBe('a b 1.');
    expect(describeAudit('something.else', {})).toBe('—');
  });
});
