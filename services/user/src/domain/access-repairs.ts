/** What the access repair sweeper needs (store/access-records.ts): one sweep, answering how many accounts it rewrote. */
export interface AccessRepairs {
  sweep(): Promise<number>;
}
