import { MAX_WEBHOOK_ATTEMPTS } from '@platform/webhooks';
import { afterWebhookAttempt, disablingReason } from './webhook-retry';

const POLICY = { initialMs: 30_000, maxMs: 6 * 3600_000 };
const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('afterWebhookAttempt', () => {
  it('when the receiver took it, then delivered and no next attempt', () => {
    expect(afterWebhookAttempt({ url: 'https://example.com/hook', attempts: 3 }, true, POLICY, NOW)).toEqual({
      result: 'delivered',
      nextAttemptAt: undefined,
    });
  });

  it('when an attempt failed, then due again after the backoff of its attempt count', () => {
    expect(afterWebhookAttempt({ url: 'https://example.com/hook', attempts: 2 }, false, POLICY, NOW)).toEqual({
      result: 'failed',
      nextAttemptAt: new Date(NOW + 60_000),
    });
  });

  it('when the last allowed attempt failed, then given up', () => {
    expect(afterWebhookAttempt({ url: 'https://example.com/hook', attempts: MAX_WEBHOOK_ATTEMPTS }, false, POLICY, NOW)).toEqual({
      result: 'given_up',
      nextAttemptAt: undefined,
    });
  });

  it('when the webhook was removed or disabled, then given up at once', () => {
    expect(afterWebhookAttempt({ url: undefined, attempts: 1 }, false, POLICY, NOW)).toEqual({
      result: 'given_up',
      nextAttemptAt: undefined,
    });
  });
});

describe('disablingReason', () => {
  const DAY = 86_400_000;
  it('when the receiver answers 410 Gone, then the webhook is disabled at once as gone', () => {
    expect(disablingReason({ delivered: false, status: 410 }, new Date(NOW), NOW)).toBe('gone');
  });

  it('when every delivery has failed for 5 days, then failing; a moment less, or any delivery, keeps it', () => {
    expect(disablingReason({ delivered: false, status: 500 }, new Date(NOW - 5 * DAY), NOW)).toBe('failing');
    expect(disablingReason({ delivered: false, status: undefined }, new Date(NOW - 5 * DAY + 1), NOW)).toBeUndefined();
    expect(disablingReason({ delivered: true, status: 200 }, new Date(NOW - 9 * DAY), NOW)).toBeUndefined();
  });
});
