import { AppError } from '@platform/wire';
import { memoryWindowCounter } from '../store/window-counters';
import { createAttemptLimits } from './attempt-limits';

function limits(failures: number) {
  return createAttemptLimits({ failuresByAddress: memoryWindowCounter({ keyPrefix: 'f', points: failures, durationSeconds: 60 }) });
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error('expected an AppError');
  return error;
}

describe('attempt limits', () => {
  test('when an address has failed as often as allowed, then its failures are still 401s; the next one is refused with a retry time', async () => {
    const subject = limits(2);
    await subject.recordFailure('1.2.3.4');
    await subject.recordFailure('1.2.3.4');
    const refused = await rejection(subject.recordFailure('1.2.3.4'));
    expect(refused.code).toBe('rate_limited');
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  test('when an address is over its failure limit, then each further failure is refused, and other addresses are not', async () => {
    const subject = limits(1);
    await subject.recordFailure('5.6.7.8');
    await rejection(subject.recordFailure('5.6.7.8'));
    expect((await rejection(subject.recordFailure('5.6.7.8'))).code).toBe('rate_limited');
    await expect(subject.recordFailure('9.9.9.9')).resolves.toBeUndefined();
  });
});
