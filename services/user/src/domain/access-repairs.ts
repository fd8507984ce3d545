/** What the access repair sweeper needs (store/access-repairs.ts): one sweep, answering how many accounts it rewrote. */
export interface AccessRepairs {
  sweep(): Promise<number>;
}

/**
 * Accounts whose records a closing write changed and whose transaction has not ended, kept in
 * Redis beside the records (one member per transaction and account, added while the account's
 * row is locked): a process killed before its transaction ended leaves them for the sweeper.
 */
export interface RepairIntents {
  add(accountId: number): Promise<string>;
  remove(members: readonly string[]): Promise<void>;
  list(): Promise<Array<{ member: string; accountId: number }>>;
}
