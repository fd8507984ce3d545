import { validateDocument } from '@platform/kernel';
import { z } from 'zod';
import { optionalInteger, requiredInteger } from './schemas';

describe('JSON integer members (CONTRACT §9)', () => {
  const required = requiredInteger(-100, 100);
  const optional = optionalInteger(-100, 100);

  it.each([undefined, null, ''])('when the value is %p, then it counts as not given', (raw) => {
    expect(optional.safeParse(raw)).toEqual({ success: true, data: undefined });
    const errors = {};
    validateDocument(z.object({ units: required }), { units: raw }, errors);
    expect(errors).toEqual({ units: ['The units field is required.'] });
  });

  it.each([
    [5, 5],
    [-5, -5],
    ['5', 5],
    ['007', 7],
    [-0, 0],
    [100, 100],
  ])('when the value is %p, then %p', (raw, value) => {
    const parsed = required.safeParse(raw);
    expect(parsed.success && Object.is(parsed.data, value)).toBe(true);
  });

  it.each([1.5, '-5', '+5', ' 5', '5 ', '1e2', '0x10', 101, -101, '101', Infinity, NaN, true, [5], { n: 5 }, 2 ** 53])(
    'when the value is %p, then it is invalid',
    (raw) => {
      expect(required.safeParse(raw).success).toBe(false);
    },
  );
});
