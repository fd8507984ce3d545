import { decodeRecord, encodeRecord } from './token-store';

describe('token record encoding', () => {
  it('when a record is encoded with its generation appended, then it decodes to the same values', () => {
    expect(decodeRecord(`${encodeRecord(42, 1_700_000_000, 1_700_003_600)}:7`)).toEqual({
      accountId: 42,
      issuedAt: 1_700_000_000,
      expiresAt: 1_700_003_600,
      generation: 7,
    });
  });

  it('encodes as accountId:issuedAt:expiresAt (the Redis LOOKUP script reads the account from the front)', () => {
    expect(encodeRecord(42, 10, 20)).toBe('42:10:20');
    expect(encodeRecord(42, 10, 20)).toMatch(/^\d+:/);
  });

  it('when a record lacks its generation, then it is refused', () => {
    expect(decodeRecord(encodeRecord(1, 2, 3))).toBeUndefined();
  });

  it.each([
    ['too many parts', '1:2:3:4:5'],
    ['letters', 'a:b:c:d'],
    ['a fraction', '1.5:2:3:4'],
    ['nothing', ''],
    ['an unsafe integer', `${2 ** 60}:2:3:4`],
  ])('when the stored value has %s, then it is refused', (_what, value) => {
    expect(decodeRecord(value)).toBeUndefined();
  });

  it.each([
    ['an empty part', '1::3:4'],
    ['a hex part', '0x10:2:3:4'],
    ['an exponent', '1e3:2:3:4'],
    ['padding', ' 1:2:3:4'],
  ])('when the stored value has %s, then it is refused', (_what, value) => {
    expect(decodeRecord(value)).toBeUndefined();
  });
});
