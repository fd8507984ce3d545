import { AppError, invalidMessage } from './errors';
import type { Params } from './params';

export type OutputFormat = 'JSON' | 'XML';

/**
 * Reads `outputFormat` (query, JSON or form body; case-insensitive). Throws the contract's 422
 * for any other value; `strict: false` falls back to JSON instead, for rendering errors.
 */
export function readOutputFormat(params: Params, strict = true): OutputFormat {
  const value = params.get('outputFormat');
  if (value.kind === 'absent') return 'JSON';
  if (value.kind === 'value') {
    const upper = value.value.toUpperCase();
    if (upper === 'JSON' || upper === 'XML') return upper;
  }
  if (!strict) return 'JSON';
  throw new AppError('invalid_params', { fields: { outputFormat: [invalidMessage('outputFormat')] } });
}
