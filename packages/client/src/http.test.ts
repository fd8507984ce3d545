import { retryDelayMs } from './http.js';

describe('retryDelayMs', () => {
  it('when Retry-After is a number of seconds, then the wait is that long', () => {
    expect(retryDelayMs('1', 0)).toBe(1000);
    expect(retryDelayMs(' 0 ', 2)).toBe(0);
  });

  it('when Retry-After is an HTTP date, then the wait lasts until then and never below 0', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelayMs('Thu, 01 Jan 2026 00:00:03 GMT', 0, now)).toBe(3000);
    expect(retryDelayMs('Wed, 31 Dec 2025 23:59:00 GMT', 0, now)).toBe(0);
  });

  it('when Retry-After is absent or garbled, then the wait backs off exponentially', () => {
    for (const [attempt, base] of [
      [0, 250],
      [1, 500],
      [2, 1000],
    ] as const) {
      for (const header of [null, 'soon']) {
        const delay = retryDelayMs(header, attempt);
        expect(delay).toBeGreaterThanOrEqual(base / 2);
        expect(delay).toBeLessThanOrEqual(base);
      }
    }
  });
});
