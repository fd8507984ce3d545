/**
 * A local doorbell between the requests that change balances and the outbox relay: a request
 * that may have committed outbox events rings it, the relay wakes up at once instead of at its
 * next poll. Other replicas' events are found by polling.
 */
export interface OutboxSignal {
  notify(): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export function createOutboxSignal(): OutboxSignal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
