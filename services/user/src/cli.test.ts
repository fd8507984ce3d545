import { parseUserCommand } from './cli';

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
    [[]],
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
  ])('when the arguments are %p, then a usage error', (args) => {
    expect(() => parseUserCommand(args)).toThrow(/usage: pnpm admin/);
  });
});
