import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';

const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

/** Keys that are not XML names (e.g. "1") are made safe rather than producing broken XML. */
function elementName(key: string): string {
  if (XML_NAME.test(key) && !/^xml/i.test(key)) return key;
  const cleaned = key.replace(/[^A-Za-z0-9._-]/g, '_');
  return XML_NAME.test(cleaned) && !/^xml/i.test(cleaned) ? cleaned : `_${cleaned}`;
}

function appendValue(parent: XMLBuilder, value: unknown): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const element of value) appendValue(parent.ele('item'), element);
    return;
  }
  if (value instanceof Date) {
    parent.txt(value.toISOString());
    return;
  }
  switch (typeof value) {
    case 'object':
      for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
        if (member === undefined) continue;
        appendValue(parent.ele(elementName(key)), member);
      }
      return;
    case 'string':
      if (value.length > 0) parent.txt(value);
      return;
    case 'number':
    case 'bigint':
    case 'boolean':
      parent.txt(String(value));
      return;
    case 'undefined':
    case 'function':
    case 'symbol':
      return;
  }
}

/**
 * Renders a JSON-shaped value as the contract's XML (CONTRACT §2): declaration, root element
 * (`xml` unless named), `<item>` per array element, empty element for null and empty arrays.
 */
export function toXml(value: unknown, rootName = 'xml'): string {
  const doc = create({ version: '1.0', encoding: 'utf-8' });
  appendValue(doc.ele(rootName), value);
  return doc.end({ prettyPrint: false });
}
