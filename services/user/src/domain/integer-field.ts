import { NUMERIC } from '@platform/wire';

/** Largest id that fits the catalogue's and the accounts' integer columns. */
export const MAX_ID = 2_147_483_647;

export type IntegerField = { kind: 'absent' } | { kind: 'value'; value: number } | { kind: 'invalid' };

/**
 * Reads an integer from a JSON document member (CONTRACT §9): a JSON integer, or a numeric
 * string `^[0-9]+$`; `null`, `undefined` and `''` count as not given. A negative value can only
 * arrive as a JSON number (and only passes when `min` allows it).
 */
export function readInteger(raw: unknown, options: { min: number; max: number }): IntegerField {
  if (raw === undefined || raw === null || raw === '') return { kind: 'absent' };
  let value: number | undefined;
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = raw;
  else if (typeof raw === 'string' && NUMERIC.test(raw)) value = Number(raw);
  if (value === undefined || value < options.min || value > options.max) return { kind: 'invalid' };
  // -0 is still 0.
  return { kind: 'value', value: value === 0 ? 0 : value };
}
