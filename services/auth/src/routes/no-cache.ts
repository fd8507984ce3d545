import type { Response } from 'express';

/** Answers that carry a token, or may, are never stored (CONTRACT §2; RFC 6749 §5.1). */
export function noCache(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}
