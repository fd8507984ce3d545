import type { Response } from 'express';
import { serialize } from '@platform/wire';
import { formatOf } from './request-state';

/**
 * Sends a success or error body in the format the kernel decided for the request (`formatOf`),
 * with the contract's content types. Written straight to the response: express's res.send would
 * look the content type up again in the MIME table and check request freshness on every call
 * (these bodies carry no validators).
 */
export function respond(res: Response, status: number, value: unknown, xmlRoot = 'xml'): void {
  const { body, contentType } = serialize(value, formatOf(res), xmlRoot);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
