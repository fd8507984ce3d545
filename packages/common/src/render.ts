import type { Response } from 'express';
import type { OutputFormat } from './output-format';
import { formatOf } from './request-state';
import { toXml } from './xml';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';

/** Serializes a response value in the requested format; returns the body and its content type. */
export function serialize(value: unknown, format: OutputFormat, xmlRoot = 'xml'): { body: string; contentType: string } {
  return format === 'XML'
    ? { body: toXml(value, xmlRoot), contentType: XML_TYPE }
    : { body: JSON.stringify(value), contentType: JSON_TYPE };
}

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
