import { AppError } from '@platform/common';
import { memoryWindowCounter } from '../store/window-counters';
import { createAttemptLimits } from './attempt-limits';

function limits(failures: number, issuances: number) {
  return createAttemptLimits({
    failuresByAddress: memoryWindowCounter({ keyPrefix: 'f', points: failures, durationSeconds: 60 }),
    issuancesByAccount: memoryWindowCounter({ keyPrefix: 'i', points: issuances, durationSeconds: 60 }),
  });
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
  test('when an address has failed as often as allowed, then it may still try; the next failure is refused with a retry time', async () => {
    const subject = limits(2, 100);
    await subject.recordFailure('1.2.3.4');
    await subject.recordFailure('1.2.3.4');
    await expect(subject.ensureAddressAllowed('1.2.3.4')).resolves.toBeUndefined();
    const refused = await rejection(subject.recordFailure('1.2.3.4'));
    expect(refused.code).toBe('rate_limited');
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  test('when an address is over its failure limit, then every request from it is refused until the window ends', async () => {
    const subject = limits(1, 100);
    await subject.recordFailure('5.6.7.8');
    await rejection(subject.recordFailure('5.6.7.8'));
    expect((await rejection(subject.ensureAddressAllowed('5.6.7.8'))).code).toBe('rate_limited');
    await expect(subject.ensureAddressAllowed('9.9.9.9')).resolves.toBeUndefined();
  });

  test('when an account exceeds its issuances, then the next issuance is refused and other accounts are not', async () => {
    const subject = limits(100, 2);
    await subject.countIssuance(1);
    await subject.countIssuance(1);
    expect((await rejection(subject.countIssuance(1))).code).toBe('rate_limited');
    await expect(subject.countIssuance(2)).resolves.toBeUndefined();
  });
});
