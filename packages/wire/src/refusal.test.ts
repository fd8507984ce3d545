import { AppError, renderError, type Envelope, type ErrorCode } from './errors';

describe('renderError: refusal reasons', () => {
  it.each<[ErrorCode, Envelope, number, string]>([
    ['unauthenticated', 'codeMessages', 401, 'invalid_credential'],
    ['credits_exhausted', 'errorMessage', 403, 'pool_exhausted'],
    ['credits_exhausted', 'oauth', 401, 'pool_exhausted'],
    ['key_not_active', 'oauth', 401, 'invalid_credential'],
    ['rate_limited', 'oauth', 429, 'rate_limited'],
  ])('when %s is rendered in the %s envelope, then its %d carries X-Refusal-Reason %s', (code, envelope, status, reason) => {
    const rendered = renderError(new AppError(code), envelope);
    expect({ status: rendered.status, header: rendered.headers['X-Refusal-Reason'], reason: rendered.reason }).toEqual({
      status,
      header: reason,
      reason,
    });
  });

  it('when the thrower names a reason, or the handler found a precise one, then that one is sent', () => {
    expect(renderError(new AppError('unauthenticated', { reason: 'key_replaced' }), 'codeMessages').headers).toMatchObject({
      'X-Refusal-Reason': 'key_replaced',
    });
    expect(
      renderError(new AppError('unauthenticated', { reason: 'invalid_credential' }), 'codeMessages', { reason: 'account_disabled' }).reason,
    ).toBe('account_disabled');
  });

  it('when the lookup found a replaced key and when, then X-Key-Replaced-At says when; no other reason carries it', () => {
    const replacedAt = new Date('2026-12-01T09:30:00Z');
    const refused = new AppError('unauthenticated', { reason: 'invalid_credential' });
    expect(renderError(refused, 'codeMessages', { reason: 'key_replaced', replacedAt }).headers).toEqual({
      'X-Refusal-Reason': 'key_replaced',
      'X-Key-Replaced-At': '2026-12-01T09:30:00.000Z',
    });
    expect(renderError(refused, 'codeMessages', { reason: 'account_disabled', replacedAt }).headers).toEqual({
      'X-Refusal-Reason': 'account_disabled',
    });
    expect(renderError(refused, 'codeMessages', { reason: 'key_replaced', replacedAt: new Date(Number.NaN) }).headers).toEqual({
      'X-Refusal-Reason': 'key_replaced',
    });
  });

  it.each<ErrorCode>(['key_not_active', 'not_found', 'invalid_params', 'unavailable', 'internal'])(
    'when %s is answered with a status that is no refusal, then no reason is sent',
    (code) => {
      const rendered = renderError(new AppError(code, { reason: 'invalid_credential' }), 'codeMessages');
      expect({ header: rendered.headers['X-Refusal-Reason'], reason: rendered.reason }).toEqual({ header: undefined, reason: undefined });
    },
  );
});
