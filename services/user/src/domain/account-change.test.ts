import { accessEffectOf, creditsChange, decideCredits, replaceKey, type AccountChange } from './account-change';

const credits = (previousCredits: number, after: number): AccountChange => ({
  kind: 'credits',
  accountId: 1,
  poolId: 1,
  previousCredits,
  credits: after,
  entries: [],
});
const key = { accountId: 1, keyId: 2, keyHash: 'h', active: true };

describe('accessEffectOf: which changes close access before the COMMIT and which open it after (CONTRACT §3)', () => {
  it.each([
    [5, 0, 'close'],
    [0, 5, 'open'],
    [5, 3, 'none'],
    [5, 5, 'none'],
    [0, 0, 'none'],
  ])('when a pool goes from %i to %i, then the effect is %s', (previous, after, effect) => {
    expect(accessEffectOf(credits(previous, after))).toBe(effect);
  });

  it('when a key is replaced, then the old key closes and the new one opens, unless the account is disabled', () => {
    expect(replaceKey(key, 'new', true).map(accessEffectOf)).toEqual(['close', 'open']);
    expect(replaceKey(key, 'new', false).map(accessEffectOf)).toEqual(['close', 'none']);
  });

  it('when an account is disabled it closes, enabled it opens; an e-mail or a settings change does nothing to access', () => {
    expect(accessEffectOf({ kind: 'disabled', key })).toBe('close');
    expect(accessEffectOf({ kind: 'enabled', key })).toBe('open');
    expect(accessEffectOf({ kind: 'email', accountId: 1, email: 'a@example.com' })).toBe('none');
    expect(accessEffectOf({ kind: 'settings', accountId: 1, patch: { webhook: null } })).toBe('none');
  });
});

describe('decideCredits: one decision for every cause', () => {
  it('when a top-up or adjustment is decided, then it is clamped at 0 and needs the pool held', () => {
    expect(decideCredits(10, { cause: 'top-up', amount: 5 })).toEqual({ ok: true, previousCredits: 10, credits: 15 });
    expect(decideCredits(10, { cause: 'adjustment', amount: -50 })).toEqual({ ok: true, previousCredits: 10, credits: 0 });
    expect(decideCredits(undefined, { cause: 'top-up', amount: 5 })).toEqual({ ok: false, reason: 'not_held' });
    expect(decideCredits(Number.MAX_SAFE_INTEGER, { cause: 'top-up', amount: 1 })).toEqual({ ok: false, reason: 'too_large' });
  });

  it('when a debit or a hold asks for more than the pool holds, then it is refused whole', () => {
    expect(decideCredits(3, { cause: 'usage', units: 3 })).toEqual({ ok: true, previousCredits: 3, credits: 0 });
    expect(decideCredits(3, { cause: 'hold', units: 4 })).toEqual({ ok: false, reason: 'exhausted' });
    expect(decideCredits(undefined, { cause: 'usage', units: 1 })).toEqual({ ok: false, reason: 'exhausted' });
  });

  it('when a reservation ends, then its units come back and the charge is taken', () => {
    expect(decideCredits(2, { cause: 'release', units: 5, charged: 3 })).toEqual({ ok: true, previousCredits: 2, credits: 4 });
  });

  it('when a credit change changes nothing, then there is no change to write', () => {
    expect(creditsChange(1, 1, { previousCredits: 0, credits: 0 }, { cause: 'adjustment' })).toEqual([]);
    expect(creditsChange(1, 1, { previousCredits: 2, credits: 7 }, { cause: 'top-up' })).toEqual([
      { ...credits(2, 7), entries: [{ cause: 'top-up', delta: 5, credits: 7, productId: null, requestId: null, digest: null }] },
    ]);
  });
});
