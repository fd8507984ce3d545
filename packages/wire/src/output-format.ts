import { AppError, invalidMessage } from './errors';
import type { Params } from './params';

export type OutputFormat = 'JSON' | 'XML';

/**
 * Reads `outputFormat` (query, JSON or form body; case-insensitive; absent or empty is JSON):
 * the format it names, or undefined for any other value. The kernel's `decideFormat` is its one
 * caller in the services' path; routes read the kernel's decision, never the parameter.
 */
export function parseOutputFormat(params: Params): OutputFormat | undefined {
  const value = params.get('outputFormat');
  if (value.kind === 'absent') return 'JSON';
  if (value.kind === 'value') {
    const upper = value.value.toUpperCase();
    if (upper === 'JSON' || upper === 'XML') return upper;
  }
  return undefined;
}

/**
 * `parseOutputFormat` with the contract's 422 for any other value; `strict: false` falls back
 * to JSON instead.
 */
export function readOutputFormat(params: Params, strict = true): OutputFormat {
  const format = parseOutputFormat(params);
  if (format !== undefined) return format;
  if (!strict) return 'JSON';
  throw new AppError('invalid_params', { fields: { outputFormat: [invalidMessage('outputFormat')] } });
}
