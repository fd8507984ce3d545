import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';

const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

/** The XML 1.0 Char production: tab, LF, CR and everything from U+0020 except surrogates and U+FFFE/U+FFFF. */
function isXmlChar(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

// Text that is only common characters needs no per-character look (the usual case).
const ONLY_XML_CHARS = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]*$/;

/** Characters XML cannot carry at all (written raw they break the document) become U+FFFD. */
function xmlChars(text: string): string {
  if (ONLY_XML_CHARS.test(text)) return text;
  let result = '';
  // for…of walks code points: a surrogate pair is one astral character, a lone surrogate stays alone.
  for (const character of text) result += isXmlChar(character.codePointAt(0) ?? 0) ? character : '\uFFFD';
  return result;
}

/** Keys that are not XML names (e.g. "1") are made safe rather than producing broken XML. */
function elementName(key: string): string {
  if (XML_NAME.test(key) && !/^xml/i.test(key)) return key;
  const cleaned = key.replace(/[^A-Za-z0-9._-]/g, '_');
  return XML_NAME.test(cleaned) && !/^xml/i.test(cleaned) ? cleaned : `_${cleaned}`;
}

// xmlbuilder2 escapes < and > but leaves an `&` that already looks like an entity (`&amp;`,
// `&foo;`) as it is, which would change the text. Escaping every `&` first leaves it only
// entity-shaped ampersands, so the output is exact. A raw carriage return is read back as a
// line feed by every conforming parser (XML 1.0 §2.11), so it is written as a reference.
function textFor(text: string): string {
  return xmlChars(text).replace(/&/g, '&amp;').replace(/\r/g, '&#13;');
}

function hasToJson(value: object): value is { toJSON(): unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** Appends what JSON.stringify would write for the value as the element's content. */
function appendValue(parent: XMLBuilder, value: unknown): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const entry of value) appendValue(parent.ele('item'), entry);
    return;
  }
  switch (typeof value) {
    case 'object':
      // Date (and anything else with toJSON) renders as what it serializes to.
      if (hasToJson(value)) {
        appendValue(parent, value.toJSON());
        return;
      }
      for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
        // JSON leaves these members out.
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        appendValue(parent.ele(elementName(key)), member);
      }
      return;
    case 'string':
      if (value !== '') parent.txt(textFor(value));
      return;
    case 'number':
      // JSON renders NaN and Infinity as null; so does XML (an empty element).
      if (Number.isFinite(value)) parent.txt(String(value));
      return;
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
 * Renders a JSON-shaped value as the contract's XML (CONTRACT §2) with xmlbuilder2: declaration,
 * root element (`xml` unless named), `<item>` per array element, empty element for null and
 * empty arrays, entity-escaped text.
 */
export function toXml(value: unknown, rootName = 'xml'): string {
  const document = create({ version: '1.0', encoding: 'utf-8' });
  appendValue(document.ele(rootName), value);
  return document.end({ prettyPrint: false });
}
