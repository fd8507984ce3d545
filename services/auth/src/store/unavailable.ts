import { AppError, unavailable } from '@platform/wire';
import type { AccessStore } from '@platform/credentials';

/** A failed Postgres or Redis call becomes the contract's 503 (typed errors pass through). */
export function asUnavailable(error: unknown): AppError {
  return error instanceof AppError ? error : unavailable(error);
}

const rethrowUnavailable = (error: unknown): never => {
  throw asUnavailable(error);
};

export function orUnavailable<T>(work: Promise<T>): Promise<T> {
  return work.catch(rethrowUnavailable);
}

/** The access store with driver failures (and a store not reconciled yet) turned into 503s. */
export function guardAccessStore(store: AccessStore): AccessStore {
  return {
    issue: (request) => orUnavailable(store.issue(request)),
    findKey: (keyHash) => orUnavailable(store.findKey(keyHash)),
    findKeys: (keyHashes) => orUnavailable(store.findKeys(keyHashes)),
    lookupToken: (token, tokenHash) => orUnavailable(store.lookupToken(token, tokenHash)),
    revokeToken: (token) => orUnavailable(store.revokeToken(token)),
    putKeys: (records) => orUnavailable(store.putKeys(records)),
    deleteKeys: (keyHashes) => orUnavailable(store.deleteKeys(keyHashes)),
    carryIssuanceWindow: (from, to) => orUnavailable(store.carryIssuanceWindow(from, to)),
    setPoolCredit: (keyHashes, poolId, credited) => orUnavailable(store.setPoolCredit(keyHashes, poolId, credited)),
    storedKeys: (visit) => orUnavailable(store.storedKeys(visit)),
    forgetKeys: (keyHashes) => orUnavailable(store.forgetKeys(keyHashes)),
    identity: () => store.identity(),
    markReconciled: (marker) => store.markReconciled(marker),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
