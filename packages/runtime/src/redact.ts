import { createHash } from 'node:crypto';

/** Member names whose values are secrets whatever they look like. */
const SECRET_KEY = /(api[-_]?key|token|secret|passw(or)?d|authorization|credential|cookie|jwt|private[-_]?key)/i;

const REDACTED = '[redacted]';
const MAX_DEPTH = 8;

// Secrets inside free text. No leading \b: `key_at_…` or `x_tk_…` must not slip through, and
// redacting a little too much is harmless. Every pattern runs in time linear in the text (a log
// line can hold 16 KiB of client input): each either has a bounded length, or may only start
// where a run of its characters starts (a one-character lookbehind), so no position is scanned
// by more than a few attempts.
const SECRET_TEXT: ReadonlyArray<readonly [RegExp, string | ((match: string) => string)]> = [
  // Authorization header values (the scheme stays: it tells which kind of credential came).
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // API keys (at_ + 29) and their Base64 form ("at_" encodes to "YXRf"), as sent in Authorization.
  [/at_[A-Za-z0-9]{29}/g, REDACTED],
  [/YXRf[A-Za-z0-9+/_-]{39}=?/g, REDACTED],
  // Access tokens.
  [/tk_[A-Za-z0-9_-]{20,}/g, REDACTED],
  // JWTs (service tokens): three dot-separated Base64url segments, the first holding `eyJ` (a
  // JSON header), possibly glued to a word before it. Whole dotted chains are matched, and the
  // JWTs inside them found segment by segment.
  [/(?<![A-Za-z0-9_-])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)+/g, redactJwts],
  // Passwords in connection URLs (postgres://user:pass@host, redis://:pass@host).
  [/((?<![a-z0-9+.-])[a-z0-9+.-]+:\/\/[^/\s:@]*:)[^@\s/]+@/gi, `$1${REDACTED}@`],
];

/**
 * A dotted chain of Base64url segments with every JWT in it replaced: a segment holding `eyJ`
 * with something after it, then a non-empty segment, then one more (possibly empty), are
 * replaced from `eyJ` on.
 */
function redactJwts(chain: string): string {
  const segments = chain.split('.');
  const kept: string[] = [];
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index] as string;
    const start = segment.indexOf('eyJ');
    if (start >= 0 && start + 3 < segment.length && index + 2 < segments.length && segments[index + 1] !== '') {
      kept.push(`${segment.slice(0, start)}${REDACTED}`);
      index += 2;
    } else {
      kept.push(segment);
    }
  }
  return kept.join('.');
}

/** A short, non-reversible identifier for a secret, safe to log and to correlate by. */
export function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

/** Replaces secret-shaped text (API keys, tokens, Authorization values, JWTs, URL passwords). */
export function redactText(text: string): string {
  let result = text;
  for (const [pattern, replacement] of SECRET_TEXT) {
    result = typeof replacement === 'string' ? result.replace(pattern, replacement) : result.replace(pattern, replacement);
  }
  return result;
}

function redactError(error: Error, depth: number): Record<string, unknown> {
  // Own enumerable members (pg's `code`, AppError's `code`) are kept, redacted like any object.
  const result = redact({ ...error }, depth) as Record<string, unknown>;
  result.name = error.name;
  result.message = redactText(error.message);
  if (error.stack !== undefined) result.stack = redactText(error.stack);
  if (error.cause !== undefined) result.cause = redact(error.cause, depth + 1);
  return result;
}

/**
 * Deep copy of a log record with secret-named members and secret-shaped text replaced.
 * Anything nested deeper than the copy goes is dropped rather than logged unredacted.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '[truncated]';
  if (value instanceof Error) return redactError(value, depth);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (ArrayBuffer.isView(value)) return `[binary ${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.map((element) => redact(element, depth + 1));
  const result: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    result[key] = SECRET_KEY.test(key) && member !== undefined && typeof member !== 'boolean' ? REDACTED : redact(member, depth + 1);
  }
  return result;
}
