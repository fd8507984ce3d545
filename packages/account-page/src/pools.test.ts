import { poolsOf } from './pools';

const item = (id: number, name: string, credits: number) => ({ product_id: id, product: { id, name }, credits });
const catalogue = [
  { id: 1, name: 'WHOIS API', poolId: 1 },
  { id: 7, name: 'Email Verification API', poolId: 7 },
  { id: 24, name: 'Bulk WHOIS API', poolId: 1 },
];

describe('pools of a balance', () => {
  it('when products share a pool, then they are listed together with the pool’s credits, pools ordered by id', () => {
    expect(poolsOf([item(24, 'Bulk WHOIS API', 5), item(7, 'Email Verification API', 0), item(1, 'WHOIS API', 5)], catalogue)).toEqual([
      { poolId: 1, name: 'WHOIS API', products: ['WHOIS API', 'Bulk WHOIS API'], credits: 5 },
      { poolId: 7, name: 'Email Verification API', products: ['Email Verification API'], credits: 0 },
    ]);
  });

  it('when the catalogue does not know a product, then it is a pool of its own', () => {
    expect(poolsOf([item(500, 'New API', 3)], catalogue)).toEqual([{ poolId: 500, name: 'New API', products: ['New API'], credits: 3 }]);
  });
});
