import type { Op } from '../history';
import { ANSWER_BOUND_MS, type Anomaly } from './anomaly';

/**
 * Every answer is 2xx, 4xx or 503 with Retry-After (CONTRACT §1: faults answer 503), never
 * another 5xx, and comes within ANSWER_BOUND_MS; no answer at all (a reset connection, a client
 * timeout) is an anomaly too.
 */
export function checkAnswers(ops: readonly Op[]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  for (const op of ops) {
    const at = { op: op.id, account: op.account };
    const { status } = op;
    if (typeof status !== 'number') anomalies.push({ rule: 'no-answer', ...at, detail: `${op.f}: ${status}` });
    else if (status === 503 && !op.retryAfter) anomalies.push({ rule: '503-without-retry-after', ...at, detail: op.f });
    else if (status >= 500 && status !== 503) anomalies.push({ rule: 'server-error', ...at, detail: `${op.f} answered ${status}` });
    else if (status < 200 || (status >= 300 && status < 400))
      anomalies.push({ rule: 'unexpected-status', ...at, detail: `${op.f} answered ${status}` });
    const took = op.end - op.start;
    if (took > ANSWER_BOUND_MS) anomalies.push({ rule: 'slow', ...at, detail: `${op.f} took ${took} ms (bound ${ANSWER_BOUND_MS} ms)` });
  }
  return anomalies;
}
