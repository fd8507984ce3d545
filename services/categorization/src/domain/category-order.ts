import { parseCategoryId, type Category } from './category';

/** The two orders of the category list (CONTRACT §4.5). */
export type CategoryOrder = 'IAB' | 'ABC';

export const CATEGORY_ORDERS: readonly CategoryOrder[] = ['IAB', 'ABC'];

/** `IAB`/`ABC`, case-insensitive; undefined for anything else. */
export function parseOrder(value: string): CategoryOrder | undefined {
  const upper = value.toUpperCase();
  return upper === 'IAB' || upper === 'ABC' ? upper : undefined;
}

const NAME_COLLATOR = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

interface Keyed {
  category: Category;
  num: number;
  /** 0 for IAB, 1 for CUS: IAB first on equal numbers. */
  sourceRank: number;
}

function byIab(a: Keyed, b: Keyed): number {
  return a.num - b.num || a.sourceRank - b.sourceRank || (a.category.id < b.category.id ? -1 : a.category.id > b.category.id ? 1 : 0);
}

function byName(a: Keyed, b: Keyed): number {
  return NAME_COLLATOR.compare(a.category.name, b.category.name) || byIab(a, b);
}

function keyed(category: Category): Keyed {
  const key = parseCategoryId(category.id);
  // Ids come from the store and always parse; an odd one sorts last rather than failing the list.
  return { category, num: key?.num ?? Number.MAX_SAFE_INTEGER, sourceRank: key?.source === 'CUS' ? 1 : 0 };
}

/**
 * A sorted copy. IAB: by the integer part of the id, `IAB-` before `CUS-` on equal integers.
 * ABC: by name (`Intl.Collator('en', {sensitivity: 'base', numeric: true})`), ties in IAB order.
 */
export function sortCategories(categories: readonly Category[], order: CategoryOrder): Category[] {
  const compare = order === 'IAB' ? byIab : byName;
  return categories
    .map(keyed)
    .sort(compare)
    .map((entry) => entry.category);
}
