/** The product catalogue (GET /admin/v1/products), so that the console names products and pools everywhere. */
import type { Product } from './api';

let products: Product[] = [];
let byId = new Map<number, Product>();

export function setCatalogue(list: Product[]): void {
  products = list;
  byId = new Map(list.map((product) => [product.id, product]));
}

export function catalogue(): readonly Product[] {
  return products;
}

/** `WHOIS API`, or `Product 99` for an id the catalogue does not know. */
export function productName(id: number): string {
  return byId.get(id)?.name ?? `Product ${id}`;
}

/** The pool's name: its lowest product's, with "pool" when others share it ("WHOIS API pool"). */
export function poolName(pool: readonly number[]): string {
  const first = pool[0];
  if (first === undefined) return '';
  return pool.length > 1 ? `${productName(first)} pool` : productName(first);
}

/** The name of the pool a product belongs to (a ledger row names its pool by the pool's id). */
export function poolNameOf(productId: number): string {
  return poolName(byId.get(productId)?.pool ?? [productId]);
}

/** Every pool of the catalogue, each with its products in id order. */
export function pools(): Product[][] {
  const seen = new Map<number, Product[]>();
  for (const product of products) {
    const key = product.pool[0] ?? product.id;
    seen.set(key, [...(seen.get(key) ?? []), product]);
  }
  return [...seen.values()];
}

/** Fills a <select> with the catalogue's products, grouped by pool ("Which product?" first). */
export function fillProductPicker(select: HTMLSelectElement, placeholder = 'Choose a product…'): void {
  const first = document.createElement('option');
  first.value = '';
  first.textContent = placeholder;
  const groups = pools().map((members) => {
    const options = members.map((product) => {
      const option = document.createElement('option');
      option.value = String(product.id);
      option.textContent = `${product.name} (${product.id})`;
      return option;
    });
    if (members.length === 1) return options;
    const group = document.createElement('optgroup');
    group.label = `${poolName(members.map((member) => member.id))}: shared credits`;
    group.append(...options);
    return [group];
  });
  select.replaceChildren(first, ...groups.flat());
}
