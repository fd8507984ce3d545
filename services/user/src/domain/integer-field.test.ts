import { readInteger } from './integer-field';

describe('readInteger', () => {
  const range = { min: -100, max: 100 };

  it.each([undefined, null, ''])('when the value is %p, then it counts as not given', (raw) => {
    expect(readInteger(raw, range)).toEqual({ kind: 'absent' });
  });

  it.each([
    [5, 5],
    [-5, -5],
    ['5', 5],
    ['007', 7],
    [-0, 0],
    [100, 100],
  ])('when the value is %p, then %p', (raw, value) => {
    expect(readInteger(raw, range)).toEqual({ kind: 'value', value });
  });

  it.each([1.5, '-5', '+5', ' 5', '5 ', '1e2', '0x10', 101, -101, '101', Infinity, NaN, true, [5], { n: 5 }, 2 ** 53])(
    'when the value is %p, then it is invalid',
    (raw) => {
      expect(readInteger(raw, range)).toEqual({ kind: 'invalid' });
    },
  );
});
