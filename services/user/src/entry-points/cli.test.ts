import { parseUserCommand, userCommandHelp } from './cli';

describe('parseUserCommand', () => {
  it('when accounts create has --email and --credits, then a POST with the credits map', () => {
    expect(parseUserCommand(['accounts', 'create', '--email', 'a@b.c', '--credits', '1=100,14=50'])).toEqual({
      method: 'POST',
      path: '/admin/v1/accounts',
      body: { email: 'a@b.c', credits: { '1': 100, '14': 50 } },
    });
  });

  it('when options use --name=value, then they are read too', () => {
    expect(parseUserCommand(['accounts', 'create', '--email=a@b.c'])).toEqual({
      method: 'POST',
      path: '/admin/v1/accounts',
      body: { email: 'a@b.c' },
    });
  });

  it('when accounts show names an id, then a GET', () => {
    expect(parseUserCommand(['accounts', 'show', '42'])).toEqual({ method: 'GET', path: '/admin/v1/accounts/42' });
  });

  it('when credits add has a negative amount, then it is sent as a JSON number', () => {
    expect(parseUserCommand(['credits', 'add', '42', '1', '-500'])).toEqual({
      method: 'POST',
      path: '/admin/v1/accounts/42/credits',
      body: { productId: 1, amount: -500 },
    });
  });

  it.each([
    [
      ['accounts', 'search', '--email', 'A@b.c', '--limit', '5'],
      { method: 'GET', path: '/admin/v1/accounts', query: { email: 'A@b.c', limit: '5' } },
    ],
    [['accounts', 'disable', '7'], { method: 'PATCH', path: '/admin/v1/accounts/7', body: { disabled: true } }],
    [['accounts', 'enable', '7'], { method: 'PATCH', path: '/admin/v1/accounts/7', body: { disabled: false } }],
    [['accounts', 'set-email', '7', 'n@b.c'], { method: 'PATCH', path: '/admin/v1/accounts/7', body: { email: 'n@b.c' } }],
    [['accounts', 'rotate-key', '7'], { method: 'POST', path: '/admin/v1/accounts/7/api-key' }],
    [['accounts', 'ledger', '7', '--cursor', 'abc'], { method: 'GET', path: '/admin/v1/accounts/7/ledger', query: { cursor: 'abc' } }],
    [['accounts', 'usage', '7', '--days', '30'], { method: 'GET', path: '/admin/v1/accounts/7/usage', query: { days: '30' } }],
    [
      ['credits', 'add', '7', '1', '50', '--reason', 'goodwill'],
      { method: 'POST', path: '/admin/v1/accounts/7/credits', body: { productId: 1, amount: 50, reason: 'goodwill' } },
    ],
    [['audit', '--account-id', '7'], { method: 'GET', path: '/admin/v1/audit', query: { accountId: '7' } }],
    [
      ['audit', '--actor', 'ops', '--action', 'category.create', '--from', '2026-01-01', '--to=2026-02-01', '--format', 'csv'],
      {
        method: 'GET',
        path: '/admin/v1/audit',
        query: { actor: 'ops', action: 'category.create', from: '2026-01-01', to: '2026-02-01', format: 'csv' },
      },
    ],
    [
      ['accounts', 'search', '--status', 'disabled', '--balance', 'low'],
      { method: 'GET', path: '/admin/v1/accounts', query: { status: 'disabled', balance: 'low' } },
    ],
    [['accounts', 'ledger', '7', '--format', 'csv'], { method: 'GET', path: '/admin/v1/accounts/7/ledger', query: { format: 'csv' } }],
    [['products'], { method: 'GET', path: '/admin/v1/products' }],
  ])('when the arguments are %p, then the admin API call', (args, call) => {
    expect(parseUserCommand(args)).toEqual(call);
  });

  it.each([['accounts', 'search'], ['accounts', 'disable'], ['accounts', 'rotate-key'], ['credits', 'add'], ['audit']])(
    'when %s %s is asked for --help, then its usage and what it does',
    (...command) => {
      const help = userCommandHelp([...command.filter((part) => part !== undefined), '--help']) ?? '';
      expect(help).toMatch(new RegExp(`^usage: pnpm admin ${command.join(' ').trim()}`));
      expect(help).toContain('ADMIN_TOKEN (never printed)');
    },
  );

  it.each([
    [[]],
    [['accounts', 'disable']],
    [['accounts', 'disable', '1', '--reason', 'x']],
    [['audit', '--account', '1']],
    [['accounts']],
    [['accounts', 'create']],
    [['accounts', 'create', '--email']],
    [['accounts', 'create', '--email', 'a@b.c', '--colour', 'red']],
    [['accounts', 'create', '--email', 'a@b.c', '--credits', '1:100']],
    [['accounts', 'show']],
    [['accounts', 'show', 'abc']],
    [['accounts', 'show', '../credits']],
    [['credits', 'add', '1', '1']],
    [['credits', 'add', '1', '1', '1.5']],
    [['credits', 'add', '1', 'x', '5']],
    [['credits', 'remove', '1', '1', '5']],
    [['products', '1']],
  ])('when the arguments are %p, then a usage error', (args) => {
    expect(() => parseUserCommand(args)).toThrow(/usage: pnpm admin/);
  });
});
