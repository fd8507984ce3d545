import type { OutputFormat } from './output-format';
import { toXml } from './xml';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';

/** Serializes a response value in the requested format; returns the body and its content type. */
export function serialize(value: unknown, format: OutputFormat, xmlRoot = 'xml'): { body: string; contentType: string } {
  return format === 'XML'
    ? { body: toXml(value, xmlRoot), contentType: XML_TYPE }
    : { body: JSON.stringify(value), contentType: JSON_TYPE };
}
