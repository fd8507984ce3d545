import { ApiError } from '@platform/client';
import { describeFailure, fieldMessages, sessionEndedText, SESSION_ENDED } from './messages';

const refused = (status: number, messages: ApiError['messages'], requestId?: string, reason?: string) =>
  new ApiError({ status, code: status, messages, requestId, reason });

describe('failures as sentences', () => {
  it('when sign-in gets a 401, then the sentence says the key was not accepted', () => {
    expect(describeFailure(refused(401, 'Access restricted.'), 'sign-in')).toMatch(/^That API key was not accepted\./);
  });

  it('when another call gets a 401, then the session has ended', () => {
    expect(describeFailure(refused(401, 'Access restricted.'), 'load')).toBe(SESSION_ENDED);
  });

  it('when rotation gets a 400 or a 422, then the sentence says what is wrong with the key', () => {
    expect(describeFailure(refused(400, 'The API key you entered does not exist or is no longer active.'), 'rotate')).toMatch(
      /not the current API key/,
    );
    expect(describeFailure(refused(422, 'Input correct request parameters.'), 'rotate')).toMatch(/does not look like an API key/);
  });

  it('when there is no answer, a 429 with Retry-After, or a 500, then each is a sentence without JSON', () => {
    expect(describeFailure(new ApiError({ status: 0, code: 'network_error', messages: 'x' }), 'load')).toMatch(/could not be reached/);
    expect(describeFailure(Object.assign(refused(429, 'Too Many Requests.'), { retryAfterSeconds: 12 }), 'sign-in')).toBe(
      'Too many attempts. Try again in 12 seconds.',
    );
    const failed = describeFailure(refused(500, 'Internal server error.', 'req-1'), 'save-alerts');
    expect(failed).toBe(
      'Something went wrong on our side. Try again in a moment. If it keeps happening, contact support and quote request req-1.',
    );
  });

  it('when a 422 names fields, then each field is a sentence of the page, never the API text', () => {
    const error = refused(422, { 'lowBalanceAlert.threshold': ['The selected low balance alert.threshold is invalid.'] });
    const sentence = 'Enter the threshold as a whole number of credits from 0 to 1,000,000,000, without spaces or separators.';
    expect(describeFailure(error, 'save-alerts')).toBe(sentence);
    expect(fieldMessages(error, 'lowBalanceAlert.threshold')).toEqual([sentence]);
    expect(fieldMessages(error, 'webhook.url')).toEqual([]);
    expect(describeFailure(refused(422, { 'webhook.url': ['The selected webhook.url is invalid.'] }), 'save-webhook')).toMatch(
      /^Use an https:\/\/ address on the public internet/,
    );
  });

  it('when a refusal says why, then a disabled account is told to contact support, a replaced key to use the new one', () => {
    const restricted = 'Access restricted. Check credits balance or enter the correct API key.';
    expect(describeFailure(refused(401, restricted, undefined, 'account_disabled'), 'sign-in')).toBe(
      'This account is disabled: contact support.',
    );
    expect(describeFailure(refused(401, restricted, undefined, 'key_replaced'), 'sign-in')).toMatch(
      /^This key was replaced by a newer one/,
    );
    const replacedOn = new ApiError({
      status: 401,
      code: 401,
      messages: restricted,
      reason: 'key_replaced',
      replacedAt: '2026-12-01T09:30:00Z',
    });
    expect(describeFailure(replacedOn, 'sign-in')).toBe(
      'This key was replaced on 1 Dec 2026, 09:30 UTC: sign in with the new key. If nobody on your side replaced it, contact support.',
    );
    expect(sessionEndedText(refused(401, restricted, undefined, 'account_disabled'))).toBe('This account is disabled: contact support.');
    expect(describeFailure(refused(401, restricted, undefined, 'invalid_credential'), 'sign-in')).toMatch(/^That API key was not accepted/);
    expect(sessionEndedText(refused(401, restricted, undefined, 'invalid_credential'))).toBe(SESSION_ENDED);
  });
});
