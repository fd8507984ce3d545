import { adminRefusalSentence } from './cli-refusal';

describe('pnpm admin: refusals worded by their reason', () => {
  it.each([
    ['wrong_admin_token', 'Wrong admin token: check ADMIN_TOKEN.'],
    ['read_only_admin', 'This admin token may only read: use a token with the admin role.'],
    ['rate_limited', 'Too many failed admin calls from this address: wait a minute and try again.'],
  ])('when the admin API refuses with %s, then the CLI says so', (reason, sentence) => {
    expect(adminRefusalSentence(reason)).toBe(sentence);
  });

  it('when there is no reason, or one the admin API never gives, then the body’s message stays', () => {
    expect([adminRefusalSentence(null), adminRefusalSentence('key_replaced'), adminRefusalSentence('toString')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
