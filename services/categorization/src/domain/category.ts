/** Where a category comes from: the IAB Tech Lab taxonomy, or the operator (custom). */
export type CategorySource = 'IAB' | 'CUS';

/** A category as served (CONTRACT §4.5): `id`, `name`, `parent` (an id, or null at the top). */
export interface Category {
  id: string;
  name: string;
  parent: string | null;
}

/** The parts of an id such as `IAB-25` or `CUS-3`. */
export interface CategoryKey {
  source: CategorySource;
  num: number;
}

const CATEGORY_ID = /^(IAB|CUS)-([1-9][0-9]{0,8})$/;

/** Parses `IAB-<n>` / `CUS-<n>` (n a positive integer without leading zeros); undefined otherwise. */
export function parseCategoryId(id: string): CategoryKey | undefined {
  const match = CATEGORY_ID.exec(id);
  if (!match) return undefined;
  return { source: match[1] as CategorySource, num: Number(match[2]) };
}

export function formatCategoryId(key: CategoryKey): string {
  return `${key.source}-${key.num}`;
}

/** The longest name a category may have, in characters (code points). */
export const MAX_NAME_LENGTH = 255;

/**
 * The form under which sibling names are compared (CONTRACT §9: case-insensitively). Computed
 * here rather than by the database so that it does not depend on the database's locale.
 */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * C0/C1 controls, unpaired surrogates and the two non-characters XML 1.0 forbids: a name holding
 * one of them could not be rendered as XML.
 */
export function hasForbiddenCharacters(name: string): boolean {
  for (const char of name) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) {
      return true;
    }
  }
  return false;
}

export function nameLength(name: string): number {
  return [...name].length;
}
