import type { Response } from 'express';
import { AppError, locals, readOutputFormat, type FieldMessages, type OutputFormat, type Params } from '@platform/common';

/**
 * Reads `outputFormat` into `errors` (so that it is reported together with the other fields)
 * and, when valid, makes errors of this request render in it too.
 */
export function collectOutputFormat(params: Params, res: Response, errors: FieldMessages): OutputFormat {
  try {
    const format = readOutputFormat(params);
    locals(res).outputFormat = format;
    return format;
  } catch (error) {
    if (!(error instanceof AppError) || !error.fields) throw error;
    Object.assign(errors, error.fields);
    return 'JSON';
  }
}
