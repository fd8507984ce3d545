/**
 * The lifetime of what a test starts (a service, a harness, a platform): for one test, or for
 * every test of a file or a describe block. Either way it is stopped whatever the tests did.
 */
export type Stoppable = { stop(): Promise<unknown> } | { close(): Promise<unknown> };

async function stopIt(started: Stoppable): Promise<void> {
  await ('stop' in started ? started.stop() : started.close());
}

/** Starts it for one test, runs `body` with it, then stops it (also when `body` throws). */
export async function withStarted<T extends Stoppable>(start: () => Promise<T>, body: (started: T) => Promise<void>): Promise<void> {
  const started = await start();
  try {
    await body(started);
  } finally {
    await stopIt(started);
  }
}

/**
 * Started before the tests of the enclosing file or describe block and stopped after them: the
 * object answered is filled in by `beforeAll` (read its members inside tests, not at load time).
 */
export function useStarted<T extends Stoppable>(start: () => Promise<T>, timeoutMs?: number): T {
  const started = {} as T;
  beforeAll(async () => {
    Object.assign(started, await start());
  }, timeoutMs);
  afterAll(async () => {
    if ('stop' in started || 'close' in started) await stopIt(started);
  }, timeoutMs);
  return started;
}
