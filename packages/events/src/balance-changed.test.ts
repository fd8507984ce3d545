import fc from 'fast-check';
import { z } from 'zod';
import { OCCURRED_AT } from './balance-changed';

const zodDatetime = z.string().datetime({ offset: true });
const accepts = (value: string): boolean => OCCURRED_AT.test(value);

describe('balance.changed occurredAt', () => {
  it('when a value is a timestamp, with or without an offset or fraction, then it is accepted as zod datetime accepts it', () => {
    const timestamps = fc
      .tuple(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.constantFrom('Z', '+00:00', '-05:30', '+14:00', '+0530', '+05'),
        fc.boolean(),
      )
      .map(([date, offset, fraction]) => {
        const iso = date.toISOString();
        return `${fraction ? iso.slice(0, -1) : iso.slice(0, 19)}${offset}`;
      });
    fc.assert(fc.property(timestamps, (value) => accepts(value) === zodDatetime.safeParse(value).success));
  });

  it('when a value is any other string, then it is refused exactly when zod datetime refuses it', () => {
    const nearly = fc.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/);
    fc.assert(fc.property(fc.oneof(fc.string(), nearly), (value) => accepts(value) === zodDatetime.safeParse(value).success));
  });

  it('when a date does not exist, then it is refused', () => {
    expect(['2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-27T24:00:00Z', '2026-11-27 10:00:00Z'].filter(accepts)).toEqual([]);
  });
});
