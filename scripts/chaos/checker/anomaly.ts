/** A rule of the checker broken: which, by which operation or account, and how. */
export interface Anomaly {
  rule: string;
  op?: number;
  account?: number;
  detail: string;
}

/** CONTRACT §1 (revised): every request answers within 5 s, faults with 503 and Retry-After. */
export const ANSWER_BOUND_MS = 5000;
