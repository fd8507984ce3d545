import { AppError, Params } from '@platform/wire';
import { validateParams } from '@platform/kernel';
import { changeSettingsRoute } from './notification-settings.routes';

/** The declared document of `POST /user-service/notification-settings`: the change, or the 422's field messages. */
function parse(body: Record<string, unknown>): { patch: unknown; errors: unknown } {
  try {
    return { patch: validateParams(changeSettingsRoute, new Params({}, body)).document, errors: {} };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { patch: undefined, errors: error.fields };
  }
}

describe('the settings patch of POST /user-service/notification-settings', () => {
  it('when the whole document is given, then every field is in the patch', () => {
    expect(parse({ lowBalanceAlert: { enabled: false, threshold: 25 }, zeroBalanceAlert: { enabled: true } })).toEqual({
      patch: { lowBalanceEnabled: false, lowBalanceThreshold: 25, zeroBalanceEnabled: true },
      errors: {},
    });
  });

  it('when only a nested member is given, then only it is in the patch', () => {
    expect(parse({ lowBalanceAlert: { threshold: '30' } })).toEqual({ patch: { lowBalanceThreshold: 30 }, errors: {} });
  });

  it('when sections or flags are absent or null, then an empty patch', () => {
    expect(parse({ apiKey: 'x', lowBalanceAlert: null })).toEqual({ patch: {}, errors: {} });
    expect(parse({ lowBalanceAlert: { enabled: null }, zeroBalanceAlert: { enabled: null } })).toEqual({ patch: {}, errors: {} });
  });

  it('when several members are bad, then all are reported with dotted names and words', () => {
    expect(parse({ lowBalanceAlert: { enabled: 'no', threshold: null }, zeroBalanceAlert: 3 }).errors).toEqual({
      'lowBalanceAlert.enabled': ['The selected low balance alert.enabled is invalid.'],
      'lowBalanceAlert.threshold': ['The selected low balance alert.threshold is invalid.'],
      zeroBalanceAlert: ['The selected zero balance alert is invalid.'],
    });
  });

  it('when the threshold is out of 0..1e9, empty, fractional or an array, then invalid', () => {
    for (const threshold of [1_000_000_001, -1, '', 1.5, '-1', [1]]) {
      expect(parse({ lowBalanceAlert: { threshold } }).errors).toEqual({
        'lowBalanceAlert.threshold': ['The selected low balance alert.threshold is invalid.'],
      });
    }
  });

  it('when the threshold is -0 or a bound, then it is kept as a plain integer', () => {
    const { patch } = parse({ lowBalanceAlert: { threshold: -0 } });
    expect(Object.is((patch as { lowBalanceThreshold: number }).lowBalanceThreshold, 0)).toBe(true);
    expect(parse({ lowBalanceAlert: { threshold: 1_000_000_000 } }).patch).toEqual({ lowBalanceThreshold: 1_000_000_000 });
  });
});
