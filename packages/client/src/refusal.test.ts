import { errorFromBody } from './api-error.js';
import { REFUSAL_SENTENCES, refusalOf, refusalReasonOf, refusalSentence } from './refusal.js';

describe('refusal reasons', () => {
  it('when the answer carries X-Refusal-Reason, then that is the reason', () => {
    expect(refusalReasonOf(new Headers({ 'X-Refusal-Reason': 'key_replaced' }))).toBe('key_replaced');
  });

  it('when only the Bearer challenge says why (a browser reading a cross-origin answer), then its error_description is the reason', () => {
    const challenge = 'Bearer realm="user", error="invalid_token", error_description="account_disabled"';
    expect(refusalReasonOf(new Headers({ 'WWW-Authenticate': challenge }))).toBe('account_disabled');
    expect(refusalReasonOf(new Headers({ 'WWW-Authenticate': 'Basic realm="auth"' }))).toBeUndefined();
  });

  it.each(Object.entries(REFUSAL_SENTENCES))('when the reason is %s, then it has its own sentence', (reason, sentence) => {
    expect(refusalSentence(reason)).toBe(sentence);
    expect(sentence).not.toBe('Access restricted. Check credits balance or enter the correct API key.');
  });

  it('when the platform names every reason of its contract, then each has a different sentence', () => {
    expect(Object.keys(REFUSAL_SENTENCES).sort()).toEqual(
      [
        'account_disabled',
        'invalid_credential',
        'key_replaced',
        'missing_credential',
        'no_credits',
        'pool_exhausted',
        'rate_limited',
        'read_only_admin',
        'wrong_admin_token',
      ].sort(),
    );
    expect(new Set(Object.values(REFUSAL_SENTENCES)).size).toBe(9);
  });

  it('when the reason is unknown or absent, then there is no sentence (the platform’s own message stays)', () => {
    expect([refusalSentence('something_new'), refusalSentence(undefined), refusalSentence('toString')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('when an error answer is read, then the ApiError keeps the reason beside the platform’s body', () => {
    const error = errorFromBody(401, { code: 401, messages: 'Access restricted.' }, 'req-1', 'Unauthorized', { reason: 'key_replaced' });
    expect(error).toMatchObject({ status: 401, messages: 'Access restricted.', reason: 'key_replaced', replacedAt: undefined });
  });

  it('when a replaced key’s answer says when, then the sentence names the day and time in UTC; a time that is none is left out', () => {
    const said = refusalOf(new Headers({ 'X-Refusal-Reason': 'key_replaced', 'X-Key-Replaced-At': '2026-12-01T09:30:00.000Z' }));
    expect(said).toEqual({ reason: 'key_replaced', replacedAt: '2026-12-01T09:30:00.000Z' });
    expect(refusalSentence(said.reason, said.replacedAt)).toBe('This key was replaced on 1 Dec 2026, 09:30 UTC: use the new key.');
    expect(refusalOf(new Headers({ 'X-Refusal-Reason': 'key_replaced', 'X-Key-Replaced-At': 'yesterday' }))).toEqual({
      reason: 'key_replaced',
    });
    expect(refusalSentence('account_disabled', '2026-12-01T09:30:00.000Z')).toBe('This account is disabled: contact support.');
  });
});
