/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The body of `<url>/health/ready` once it answers 200, as a readiness probe sees a service come
 * up: a service listens before every dependency it reports on is attached (the notifier's consumer).
 */
export async function readyBody(url: string, timeoutMs = 30_000): Promise<unknown> {
  return eventually(
    async () => {
      const reply = await fetch(`${url}/health/ready`);
      if (reply.status === 200) return await reply.json();
      await reply.body?.cancel();
      return undefined;
    },
    timeoutMs,
    `${url} ready`,
  );
}
