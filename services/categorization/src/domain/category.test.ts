import { formatCategoryId, hasForbiddenCharacters, nameKey, parseCategoryId } from './category';

describe('parseCategoryId', () => {
  it('when the id is IAB-<n> or CUS-<n>, then its parts are returned', () => {
    expect(parseCategoryId('IAB-25')).toEqual({ source: 'IAB', num: 25 });
    expect(parseCategoryId('CUS-3')).toEqual({ source: 'CUS', num: 3 });
    expect(formatCategoryId({ source: 'CUS', num: 3 })).toBe('CUS-3');
  });

  it.each(['iab-1', 'IAB-0', 'IAB-01', 'IAB-', 'XYZ-1', 'IAB-1 ', 'IAB-1.5', 'CUS-1234567890'])(
    'when the id is %p, then it is not an id',
    (id) => {
      expect(parseCategoryId(id)).toBeUndefined();
    },
  );
});

describe('names', () => {
  it('when names differ only in case, then their keys are equal', () => {
    expect(nameKey('Auto Parts')).toBe(nameKey('AUTO parts'));
    expect(nameKey('Ärzte')).toBe(nameKey('ärzte'));
  });

  it('when a name holds a control character or an unpaired surrogate, then it is refused', () => {
    expect(hasForbiddenCharacters('Tab\there')).toBe(true);
    expect(hasForbiddenCharacters('nul\u0000')).toBe(true);
    expect(hasForbiddenCharacters('c1\u0085')).toBe(true);
    expect(hasForbiddenCharacters('lone \ud800 surrogate')).toBe(true);
    expect(hasForbiddenCharacters('Curaçao & Māori 🎮 <b>')).toBe(false);
  });
});
