import { toXml } from './xml';

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

describe('toXml', () => {
  it('when rendering anything, then the document starts with the contract declaration exactly', () => {
    expect(toXml({}).startsWith(DECLARATION)).toBe(true);
    expect(toXml({ a: 1 })).toBe(`${DECLARATION}<xml><a>1</a></xml>`);
  });

  it('when no root is named, then the root element is <xml>', () => {
    expect(toXml({ apiKey: 'at_x' })).toBe(`${DECLARATION}<xml><apiKey>at_x</apiKey></xml>`);
  });

  it('when the value is an object, then each member becomes a child element in member order', () => {
    expect(toXml({ b: 'two', a: 'one', c: { d: 'three' } })).toBe(`${DECLARATION}<xml><b>two</b><a>one</a><c><d>three</d></c></xml>`);
  });

  it('when a member is an array, then every element is an <item>', () => {
    expect(toXml({ data: ['a', 'b'] })).toBe(`${DECLARATION}<xml><data><item>a</item><item>b</item></data></xml>`);
  });

  it('when arrays are nested, then items hold items', () => {
    expect(toXml({ m: [[1, 2], [3]] })).toBe(
      `${DECLARATION}<xml><m><item><item>1</item><item>2</item></item><item><item>3</item></item></m></xml>`,
    );
  });

  it('when the top-level value is an array, then its elements are <item>s directly under <xml>', () => {
    const categories = [
      { id: 'IAB-1', name: 'Automotive', parent: null },
      { id: 'IAB-2', name: 'Auto Body Styles', parent: 'IAB-1' },
    ];
    expect(toXml(categories)).toBe(
      `${DECLARATION}<xml><item><id>IAB-1</id><name>Automotive</name><parent/></item>` +
        `<item><id>IAB-2</id><name>Auto Body Styles</name><parent>IAB-1</parent></item></xml>`,
    );
  });

  it('when the top-level array is empty, then the root is an empty element', () => {
    expect(toXml([])).toBe(`${DECLARATION}<xml/>`);
  });

  it('when a member is null, then it is an empty element <parent/>', () => {
    expect(toXml({ parent: null })).toBe(`${DECLARATION}<xml><parent/></xml>`);
  });

  it('when a member is an empty array, then it is an empty element', () => {
    expect(toXml({ data: [] })).toBe(`${DECLARATION}<xml><data/></xml>`);
  });

  it('when a member is an empty string or empty object, then it is an empty element', () => {
    expect(toXml({ s: '', o: {} })).toBe(`${DECLARATION}<xml><s/><o/></xml>`);
  });

  it('when a member is undefined or a function, then it is left out as JSON leaves it out', () => {
    expect(toXml({ a: undefined, f: () => 1, b: 1 })).toBe(`${DECLARATION}<xml><b>1</b></xml>`);
  });

  it('when an array element is null, then it is an empty <item/>', () => {
    expect(toXml({ list: [null, 1] })).toBe(`${DECLARATION}<xml><list><item/><item>1</item></list></xml>`);
  });

  it('when a member is a boolean, then it reads true or false', () => {
    expect(toXml({ enabled: true, off: false })).toBe(`${DECLARATION}<xml><enabled>true</enabled><off>false</off></xml>`);
  });

  it('when a member is a number, then it is written as JSON writes it', () => {
    expect(toXml({ int: 4837993, zero: 0, neg: -5, frac: 1.5, big: 10n })).toBe(
      `${DECLARATION}<xml><int>4837993</int><zero>0</zero><neg>-5</neg><frac>1.5</frac><big>10</big></xml>`,
    );
  });

  it('when a number is not finite, then it is an empty element as JSON renders it null', () => {
    expect(JSON.stringify({ n: Number.NaN })).toBe('{"n":null}');
    expect(toXml({ n: Number.NaN, i: Number.POSITIVE_INFINITY })).toBe(`${DECLARATION}<xml><n/><i/></xml>`);
  });

  it('when text holds &, < or >, then they are entity-escaped', () => {
    expect(toXml({ name: 'Website Contacts & Categorization <Database>' })).toBe(
      `${DECLARATION}<xml><name>Website Contacts &amp; Categorization &lt;Database&gt;</name></xml>`,
    );
  });

  it('when text holds something that looks like markup, then it stays text', () => {
    expect(toXml({ v: '</v><evil/>' })).toBe(`${DECLARATION}<xml><v>&lt;/v&gt;&lt;evil/&gt;</v></xml>`);
    expect(toXml({ v: ']]>' })).toBe(`${DECLARATION}<xml><v>]]&gt;</v></xml>`);
  });

  it('when text already looks like an entity, then its & is escaped too (the text round-trips)', () => {
    expect(toXml({ v: 'R&amp;D' })).toBe(`${DECLARATION}<xml><v>R&amp;amp;D</v></xml>`);
    expect(toXml({ v: 'Q&A; &#38; &lt;' })).toBe(`${DECLARATION}<xml><v>Q&amp;A; &amp;#38; &amp;lt;</v></xml>`);
  });

  it('when text holds quotes, then they are kept as they are (text needs no quote escaping)', () => {
    expect(toXml({ q: `say "hi" & 'bye'` })).toBe(`${DECLARATION}<xml><q>say "hi" &amp; 'bye'</q></xml>`);
  });

  it('when text holds characters XML 1.0 cannot carry, then they become U+FFFD and the document stays well-formed', () => {
    expect(toXml({ v: 'a\u0000b\u001bc\uFFFEd\uD800e' })).toBe(`${DECLARATION}<xml><v>a\uFFFDb\uFFFDc\uFFFDd\uFFFDe</v></xml>`);
  });

  it('when text holds tabs, newlines and astral characters, then they pass unchanged', () => {
    expect(toXml({ v: 'a\tb\nc 😀 é' })).toBe(`${DECLARATION}<xml><v>a\tb\nc 😀 é</v></xml>`);
  });

  it('when a member is a Date, then it reads as its JSON form', () => {
    expect(toXml({ at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) })).toBe(`${DECLARATION}<xml><at>2024-01-02T03:04:05.000Z</at></xml>`);
  });

  it('renders the real balance sample (CONTRACT §4.3) byte for byte', () => {
    const balance = { data: [{ product_id: 1, product: { id: 1, name: 'WHOIS API' }, credits: 4837993 }] };
    expect(toXml(balance)).toBe(
      `${DECLARATION}<xml><data><item><product_id>1</product_id><product><id>1</id><name>WHOIS API</name></product><credits>4837993</credits></item></data></xml>`,
    );
  });

  it('renders the code/messages 422 envelope as CONTRACT §2 shows it', () => {
    const body = { code: 422, messages: { grantType: ['The selected grant type is invalid.'] } };
    expect(toXml(body)).toBe(
      `${DECLARATION}<xml><code>422</code><messages><grantType><item>The selected grant type is invalid.</item></grantType></messages></xml>`,
    );
  });

  it('when the root is named ErrorMessage, then that is the root element', () => {
    expect(toXml({ errorCode: 'AUTHENTICATE_01', msg: 'm' }, 'ErrorMessage')).toBe(
      `${DECLARATION}<ErrorMessage><errorCode>AUTHENTICATE_01</errorCode><msg>m</msg></ErrorMessage>`,
    );
  });

  it('when the top-level value is a scalar, then it is the text of the root', () => {
    expect(toXml('top')).toBe(`${DECLARATION}<xml>top</xml>`);
    expect(toXml(null)).toBe(`${DECLARATION}<xml/>`);
  });

  describe('keys that are not XML names', () => {
    it('when a key is numeric (a product id), then it is prefixed with _', () => {
      expect(toXml({ credits: { '1': 100 } })).toBe(`${DECLARATION}<xml><credits><_1>100</_1></credits></xml>`);
    });

    it('when a key holds characters not allowed in names, then they become _', () => {
      expect(toXml({ 'a b': 1, 'x:y': 2, 'c/d': 3 })).toBe(`${DECLARATION}<xml><a_b>1</a_b><x_y>2</x_y><c_d>3</c_d></xml>`);
    });

    it('when a key starts with "xml" (reserved), then it is prefixed with _', () => {
      expect(toXml({ xmlns: 'x', XMLfoo: 'y' })).toBe(`${DECLARATION}<xml><_xmlns>x</_xmlns><_XMLfoo>y</_XMLfoo></xml>`);
    });

    it('when a key is empty or starts with - or ., then the element still has a valid name', () => {
      expect(toXml({ '': 1, '-a': 2, '.b': 3 })).toBe(`${DECLARATION}<xml><_>1</_><_-a>2</_-a><_.b>3</_.b></xml>`);
    });

    it('when a key is a dotted field name, then it is kept (dots are valid in names)', () => {
      expect(toXml({ 'lowBalanceAlert.threshold': ['x'] })).toBe(
        `${DECLARATION}<xml><lowBalanceAlert.threshold><item>x</item></lowBalanceAlert.threshold></xml>`,
      );
    });
  });
});
