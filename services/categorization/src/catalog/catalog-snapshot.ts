import { createHash } from 'node:crypto';
import { serialize, type OutputFormat } from '@platform/common';
import type { Category } from '../domain/category';
import { CATEGORY_ORDERS, sortCategories, type CategoryOrder } from '../domain/category-order';

/** One ready-to-send body of the category list. */
export interface Representation {
  body: Buffer;
  contentType: string;
  /** Strong validator: a quoted hash of the body. */
  etag: string;
}

/** The category list of one version, rendered once in every order and format. */
export interface CatalogSnapshot {
  version: number;
  size: number;
  representation(order: CategoryOrder, format: OutputFormat): Representation;
}

const FORMATS: readonly OutputFormat[] = ['JSON', 'XML'];

function render(categories: readonly Category[], format: OutputFormat): Representation {
  // Fixed member order: id, name, parent.
  const items = categories.map((category) => ({ id: category.id, name: category.name, parent: category.parent }));
  const { body, contentType } = serialize(items, format);
  const bytes = Buffer.from(body, 'utf8');
  return { body: bytes, contentType, etag: `"${createHash('sha256').update(bytes).digest('base64url')}"` };
}

export function buildCatalogSnapshot(version: number, categories: readonly Category[]): CatalogSnapshot {
  const representations = new Map<string, Representation>();
  for (const order of CATEGORY_ORDERS) {
    const sorted = sortCategories(categories, order);
    for (const format of FORMATS) representations.set(`${order}:${format}`, render(sorted, format));
  }
  return {
    version,
    size: categories.length,
    representation(order, format) {
      const found = representations.get(`${order}:${format}`);
      if (!found) throw new Error(`no representation for ${order}/${format}`);
      return found;
    },
  };
}
