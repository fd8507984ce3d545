/**
 * A switch for tests that is on outside production (CONTRACT §1 refuses it under
 * NODE_ENV=production, see config.test.ts) is said once at start, as a warning naming it.
 */
import { captureLogs } from '@platform/testing';
import { startHarness, testConfig } from './harness';

describe('user service test switches at start', () => {
  it.each([
    ['true', 1],
    ['false', 0],
  ])('when WEBHOOK_ALLOW_INSECURE=%s, then the start logs %d warning naming it', async (value, warnings) => {
    const logs = captureLogs('user');
    const user = await startHarness({ config: testConfig({ WEBHOOK_ALLOW_INSECURE: value }), logger: logs.logger });
    try {
      const named = logs.lines().filter((line) => line.level === 'warn' && line.variable === 'WEBHOOK_ALLOW_INSECURE');
      expect(named).toHaveLength(warnings);
      expect(named.map((line) => line.message)).toEqual(
        Array.from(
          { length: warnings },
          () => 'WEBHOOK_ALLOW_INSECURE is on: a switch for development and tests, refused when NODE_ENV=production',
        ),
      );
    } finally {
      await user.stop();
    }
  });
});
