/**
 * Runs tasks with the same key one after another, in the order they were submitted; tasks with
 * different keys run concurrently. The consumer gets up to `prefetch` deliveries at once, but
 * the alert rules want a pool's changes in publication order.
 */
export function serialByKey(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}
