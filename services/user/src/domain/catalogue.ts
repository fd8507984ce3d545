/** A catalogue product and the pool it draws from (the pool's lowest product id). */
export interface Product {
  id: number;
  name: string;
  poolId: number;
}

/** The product catalogue, as read from the products table. */
export interface Catalogue {
  /** Every product, ordered by id. */
  products: readonly Product[];
  byId: ReadonlyMap<number, Product>;
  /** The products of each pool, ordered by id. */
  byPool: ReadonlyMap<number, readonly Product[]>;
}

/** The catalogue as the domain reads it (kept in memory by the store: only a migration changes it). Its functions need no `this`. */
export interface CatalogueReads {
  /** A catalogue product by id; undefined when the catalogue has no such product (read again before answering so). */
  readonly product: (productId: number) => Promise<Product | undefined>;
  /** The kept catalogue, read on first use. */
  readonly current: () => Catalogue | Promise<Catalogue>;
  /** Reads the catalogue again and keeps it. */
  readonly reload: () => Promise<Catalogue>;
}
