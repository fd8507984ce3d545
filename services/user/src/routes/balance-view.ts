import type { ProductBalance } from '../domain/user-store';

/** The wire shape of one balance item (real): `{"product_id":1,"product":{"id":1,"name":"WHOIS API"},"credits":4837993}`. */
export function balanceItemView(balance: ProductBalance): { product_id: number; product: { id: number; name: string }; credits: number } {
  return { product_id: balance.productId, product: { id: balance.productId, name: balance.productName }, credits: balance.credits };
}
