import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { toXml } from './xml';

/** What a conforming XML parser (saxes) reads back from the document, per the contract's mapping. */
type Read = string | Read[] | { [name: string]: Read };

interface Open {
  name: string;
  children: Array<{ name: string; value: Read }>;
  text: string;
}

function readBack(xml: string): { root: string; value: Read } {
  const parser = new SaxesParser();
  const stack: Open[] = [];
  let result: { root: string; value: Read } | undefined;
  parser.on('opentag', (tag) => stack.push({ name: tag.name, children: [], text: '' }));
  parser.on('text', (text) => {
    const top = stack[stack.length - 1];
    if (top) top.text += text;
  });
  parser.on('closetag', () => {
    const element = stack.pop() as Open;
    let value: Read;
    if (element.children.length === 0) value = element.text;
    else if (element.children.every((child) => child.name === 'item')) value = element.children.map((child) => child.value);
    else value = Object.fromEntries(element.children.map((child) => [child.name, child.value]));
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push({ name: element.name, value });
    else result = { root: element.name, value };
  });
  parser.write(xml).close();
  return result as { root: string; value: Read };
}

/** What the XML can say about a JSON value: scalars as their text, null and empty arrays/objects as an empty element. */
function expected(value: unknown): Read {
  if (value === null) return '';
  if (Array.isArray(value)) return value.length === 0 ? '' : value.map(expected);
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? '' : Object.fromEntries(entries.map(([key, member]) => [key, expected(member)]));
  }
  // Characters XML 1.0 cannot carry are written as U+FFFD (documented in xml.ts).
  const scalar = typeof value === 'string' ? value : JSON.stringify(value);
  return scalar.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

// Member names as the APIs use them (camelCase, snake_case, dotted field names); `item` is the array element's name.
const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9._-]{0,12}$/).filter((key) => key !== 'item' && !/^xml/i.test(key));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom('a', ' ', '\r', '\n', '\t', '&', '<', '>', ']]>', '&amp;', '"', "'", '\u0000', '\uFFFF', '😀') }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(name, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('XML renderer: what it writes, a conforming parser reads back as the same value', () => {
  it('for any JSON-shaped document (text with markup, entities, CR/LF, control and astral characters)', () => {
    fc.assert(
      fc.property(fc.dictionary(name, json, { maxKeys: 5 }), (document) => {
        const xml = toXml(document);
        expect(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
        expect(readBack(xml)).toEqual({ root: 'xml', value: expected(document) });
      }),
      { numRuns: 200 },
    );
  });

  it('for a top-level array: <xml><item>…</item>…</xml>', () => {
    fc.assert(
      fc.property(fc.array(json, { minLength: 1, maxLength: 5 }), (items) => {
        expect(readBack(toXml(items))).toEqual({ root: 'xml', value: expected(items) });
      }),
    );
  });

  it('when text holds a carriage return, then it survives a conforming parser (which turns a raw CR into LF)', () => {
    expect(readBack(toXml({ note: 'line one\r\nline two\r' })).value).toEqual({ note: 'line one\r\nline two\r' });
  });
});
