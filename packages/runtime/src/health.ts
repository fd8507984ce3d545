import { redactText } from './redact';
import { errorMessage } from './error-message';

/** A named readiness check: resolves when the dependency answers, rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 2000;

async function withTimeout(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      // A check that throws instead of rejecting is a failed check too, not a 500.
      Promise.resolve()
        .then(check)
        .then(
          () => 'ok',
          (error: unknown) => `failed: ${redactText(errorMessage(error))}`,
        ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Readiness state of one service: its dependency checks and whether it is draining. */
export class Health {
  private draining = false;
  private readonly failureListeners: Array<(check: string) => void> = [];

  constructor(private readonly checks: Record<string, ReadinessCheck>) {}

  markDraining(): void {
    this.draining = true;
  }

  /** Calls `listener` with a check's name each time that check fails (the dependency_errors_total metric). */
  onCheckFailed(listener: (check: string) => void): void {
    this.failureListeners.push(listener);
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async report(): Promise<{ ready: boolean; body: Record<string, unknown> }> {
    const names = Object.keys(this.checks);
    const results = await Promise.all(names.map((name) => withTimeout(this.checks[name] as ReadinessCheck)));
    const checks = Object.fromEntries(names.map((name, index) => [name, results[index]]));
    names.forEach((name, index) => {
      if (results[index] !== 'ok') for (const listener of this.failureListeners) listener(name);
    });
    if (this.draining) return { ready: false, body: { status: 'draining', checks } };
    const ready = results.every((result) => result === 'ok');
    return { ready, body: ready ? { status: 'ready' } : { status: 'not ready', checks } };
  }
}
