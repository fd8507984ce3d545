import { createHash } from 'node:crypto';

const SECRET_KEY = /(api[-_]?key|token|secret|password|authorization|credential|cookie)/i;
// API keys (at_ + 29), access tokens (tk_…), bearer values and JWTs inside free text.
const SECRET_TEXT = [
  /\bat_[A-Za-z0-9]{29}\b/g,
  /\btk_[A-Za-z0-9_-]{20,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi,
  /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
];

/** A short, non-reversible identifier for a secret, safe to log and to correlate by. */
export function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

export function redactText(text: string): string {
  let result = text;
  for (const pattern of SECRET_TEXT) result = result.replace(pattern, '[redacted]');
  return result;
}

/** Deep copy of a log record with secret-named members and secret-shaped text replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message), stack: value.stack ? redactText(value.stack) : undefined };
  }
  if (Array.isArray(value)) return value.map((element) => redact(element, depth + 1));
  const result: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    result[key] = SECRET_KEY.test(key) && member !== undefined && typeof member !== 'boolean' ? '[redacted]' : redact(member, depth + 1);
  }
  return result;
}
