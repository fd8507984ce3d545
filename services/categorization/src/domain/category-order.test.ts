import type { Category } from './category';
import { parseOrder, sortCategories } from './category-order';

const category = (id: string, name: string, parent: string | null = null): Category => ({ id, name, parent });
const ids = (categories: Category[]): string[] => categories.map((entry) => entry.id);

describe('parseOrder', () => {
  it('when the order is IAB or ABC in any case, then it is accepted', () => {
    expect(parseOrder('IAB')).toBe('IAB');
    expect(parseOrder('iab')).toBe('IAB');
    expect(parseOrder('Abc')).toBe('ABC');
  });

  it('when the order is anything else, then it is refused', () => {
    expect(parseOrder('NAME')).toBeUndefined();
    expect(parseOrder(' IAB')).toBeUndefined();
    expect(parseOrder('')).toBeUndefined();
  });
});

describe('sortCategories in IAB order', () => {
  it('when custom categories share numbers with IAB ones, then IAB comes first on equal numbers (the SDK fixture)', () => {
    const sorted = sortCategories([category('IAB-25', 'Z'), category('CUS-2', 'B'), category('IAB-1', 'A'), category('CUS-1', 'C')], 'IAB');
    expect(ids(sorted)).toEqual(['IAB-1', 'CUS-1', 'CUS-2', 'IAB-25']);
  });

  it('when ids have different lengths, then they compare as integers (IAB-2 before IAB-10)', () => {
    const sorted = sortCategories(
      [category('IAB-10', 'a'), category('IAB-100', 'b'), category('IAB-2', 'c'), category('CUS-10', 'd')],
      'IAB',
    );
    expect(ids(sorted)).toEqual(['IAB-2', 'IAB-10', 'CUS-10', 'IAB-100']);
  });

  it('does not change its input', () => {
    const input = [category('IAB-2', 'b'), category('IAB-1', 'a')];
    sortCategories(input, 'IAB');
    expect(ids(input)).toEqual(['IAB-2', 'IAB-1']);
  });
});

describe('sortCategories in ABC order', () => {
  it('when names differ in case, punctuation and digits, then the en collator (base, numeric) decides', () => {
    const sorted = sortCategories(
      [
        category('IAB-682', 'eSports'),
        category('IAB-603', '3-D Graphics'),
        category('IAB-496', 'Equine Sports'),
        category('IAB-222', 'Europe Travel'),
        category('IAB-1', 'Automotive'),
        category('CUS-7', 'Item 10'),
        category('CUS-8', 'Item 9'),
      ],
      'ABC',
    );
    expect(sorted.map((entry) => entry.name)).toEqual([
      '3-D Graphics',
      'Automotive',
      'Equine Sports',
      'eSports',
      'Europe Travel',
      'Item 9',
      'Item 10',
    ]);
  });

  it('when names are equal ignoring case and accents, then ties are broken by the IAB order', () => {
    const sorted = sortCategories(
      [category('CUS-3', 'Travel'), category('IAB-20', 'travel'), category('CUS-1', 'Trável'), category('IAB-3', 'TRAVEL')],
      'ABC',
    );
    expect(ids(sorted)).toEqual(['CUS-1', 'IAB-3', 'CUS-3', 'IAB-20']);
  });
});
