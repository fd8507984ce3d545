/**
 * The clients' HTTP calls, each recorded as one operation of the history (history.ts) with its
 * start and end (ms since the run began) and its outcome. A call waits at most CLIENT_TIMEOUT_MS:
 * past that it is recorded as a `timeout` (the checker's bound is 5 s; the client waits longer to
 * see how long a hang lasts).
 */
import type { Op } from './history';

export const CLIENT_TIMEOUT_MS = 15_000;

export type Invocation = Omit<Op, 'id' | 'start' | 'end' | 'type' | 'status'>;

export interface Answer {
  op: Op;
  body: Record<string, unknown>;
}

function outcomeOf(status: Op['status']): Op['type'] {
  if (typeof status !== 'number' || status >= 500) return 'info';
  return status < 300 ? 'ok' : 'fail';
}

export class Recorder {
  readonly ops: Op[] = [];
  readonly startedAt = Date.now();
  private nextId = 1;

  now(): number {
    return Date.now() - this.startedAt;
  }

  /** The id the next operation gets (a token is named by the id of the `issue` that minted it). */
  async call(invocation: Invocation, url: string, init: RequestInit = {}): Promise<Answer> {
    const id = this.nextId++;
    const start = this.now();
    let status: Op['status'];
    let body: Record<string, unknown> = {};
    let retryAfter = false;
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      status = response.status;
      retryAfter = response.headers.has('retry-after');
      const text = await response.text();
      if (text.startsWith('{')) body = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      status = (error as Error).name === 'TimeoutError' ? 'timeout' : 'no answer';
    }
    const op: Op = { id, ...invocation, start, end: this.now(), type: outcomeOf(status), status };
    if (status === 503) op.retryAfter = retryAfter;
    if (op.type === 'ok' && typeof body.credits === 'number') op.credits = body.credits;
    this.ops.push(op);
    return { op, body };
  }
}
