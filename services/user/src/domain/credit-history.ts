/** The account's top-ups and adjustments (CONTRACT §4.8): what the credit history reads. */
export interface CreditChangeRow {
  id: string;
  productId: number;
  delta: number;
  credits: number;
  cause: 'top-up' | 'adjustment';
  at: Date;
}

export interface CreditHistoryReads {
  /** Up to `limit` rows of the account, newest first, older than the ledger id `before` when given. */
  page(accountId: number, before: number | undefined, limit: number): Promise<CreditChangeRow[]>;
}
