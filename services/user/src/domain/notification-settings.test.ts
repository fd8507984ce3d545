import type { FieldMessages } from '@platform/wire';
import { parseSettingsPatch } from './notification-settings';

function parse(body: Record<string, unknown>): { patch: unknown; errors: FieldMessages } {
  const errors: FieldMessages = {};
  return { patch: parseSettingsPatch(body, errors), errors };
}

describe('parseSettingsPatch', () => {
  it('when the whole document is given, then every field is in the patch', () => {
    expect(parse({ lowBalanceAlert: { enabled: false, threshold: 25 }, zeroBalanceAlert: { enabled: true } })).toEqual({
      patch: { lowBalanceEnabled: false, lowBalanceThreshold: 25, zeroBalanceEnabled: true },
      errors: {},
    });
  });

  it('when only a nested member is given, then only it is in the patch', () => {
    expect(parse({ lowBalanceAlert: { threshold: '30' } })).toEqual({ patch: { lowBalanceThreshold: 30 }, errors: {} });
  });

  it('when sections are absent or null, then an empty patch', () => {
    expect(parse({ apiKey: 'x', lowBalanceAlert: null })).toEqual({ patch: {}, errors: {} });
  });

  it('when several members are bad, then all are reported with dotted names and words', () => {
    expect(parse({ lowBalanceAlert: { enabled: 'no', threshold: null }, zeroBalanceAlert: 3 }).errors).toEqual({
      'lowBalanceAlert.enabled': ['The selected low balance alert.enabled is invalid.'],
      'lowBalanceAlert.threshold': ['The selected low balance alert.threshold is invalid.'],
      zeroBalanceAlert: ['The selected zero balance alert is invalid.'],
    });
  });

  it('when the threshold is out of 0..1e9, then invalid', () => {
    expect(parse({ lowBalanceAlert: { threshold: 1_000_000_001 } }).errors).toHaveProperty(['lowBalanceAlert.threshold']);
    expect(parse({ lowBalanceAlert: { threshold: -1 } }).errors).toHaveProperty(['lowBalanceAlert.threshold']);
  });
});
