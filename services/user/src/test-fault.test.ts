import { createTestFault } from './test-fault';

describe('the test-only faults (TEST_FAULT)', () => {
  test('fire on every n-th run of the named step only, and not at all when unset', () => {
    const fault = createTestFault('usage-answer-without-commit@3');
    const fired = Array.from({ length: 7 }, () => fault?.('usage-answer-without-commit'));
    expect(fired).toEqual([false, false, true, false, false, true, false]);
    expect(fault?.('another-step')).toBe(false);
    expect(createTestFault(undefined)).toBeUndefined();
    expect(() => createTestFault('usage-answer-without-commit')).toThrow(/TEST_FAULT must be <fault>@<n>/);
  });
});
