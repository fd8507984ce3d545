import { parseTaxonomy, TaxonomyFileError, type TaxonomyProblem } from './taxonomy-file';

// Made-up rows in the layout of the IAB files (banner, header, 8 tab-separated fields, CRLF).
const BANNER = ['Relational ID System', '', '', 'Made-up Taxonomy', '', '', '', 'Extension'].join('\t');
const HEADER = ['Unique ID', 'Parent', 'Name', 'Tier 1', 'Tier 2', 'Tier 3', 'Tier 4', ''].join('\t');
const row = (id: string, parent: string, name: string, extension = ''): string =>
  [id, parent, name, name, '', '', '', extension].join('\t');
const crlf = (...lines: string[]): string => `${lines.join('\r\n')}\r\n`;

function problemsOf(text: string): TaxonomyProblem[] {
  try {
    parseTaxonomy(text);
  } catch (error) {
    if (error instanceof TaxonomyFileError) return error.problems;
    throw error;
  }
  throw new Error('expected a TaxonomyFileError');
}

describe('parseTaxonomy', () => {
  it('when the file has a banner, a header, blank, alphanumeric and extension rows, then only the topical rows are kept', () => {
    const text = crlf(
      BANNER,
      HEADER,
      row('1', '', 'Made-up Root'),
      row('2', '1', ' Made-up Child ', 'SCD'),
      row('3', '2', 'Made-up Grandchild'),
      row('zz9Top', '', 'Alphanumeric Root'),
      row('zz9Kid', 'zz9Top', 'Alphanumeric Child'),
      '\t\t\t\t\t\t\t',
      row('1000', '', 'Extension Root'),
      row('1001', '1000', 'Extension Child'),
    );
    expect(parseTaxonomy(text)).toEqual({
      rows: [
        { id: 1, name: 'Made-up Root', parent: null, line: 3 },
        { id: 2, name: 'Made-up Child', parent: 1, line: 4 },
        { id: 3, name: 'Made-up Grandchild', parent: 2, line: 5 },
      ],
      skipped: { blank: 1, alphanumeric: 2, extension: 2 },
    });
  });

  it('when there is no banner, LF line endings, a BOM and no final newline, then the rows are read alike', () => {
    const text = `\uFEFF${[HEADER, row('7', '', 'Seven'), row('8', '7', 'Eight')].join('\n')}`;
    expect(parseTaxonomy(text).rows).toEqual([
      { id: 7, name: 'Seven', parent: null, line: 2 },
      { id: 8, name: 'Eight', parent: 7, line: 3 },
    ]);
  });

  it('when a child comes before its parent, then it is accepted', () => {
    expect(parseTaxonomy(crlf(HEADER, row('5', '6', 'Child'), row('6', '', 'Parent'))).rows.map((entry) => entry.parent)).toEqual([
      6,
      null,
    ]);
  });

  it('when the columns are in another order, then the header decides which is which', () => {
    const header = ['Name', 'Unique ID', 'Parent'].join('\t');
    expect(parseTaxonomy(crlf(header, ['Root', '4', ''].join('\t'))).rows).toEqual([{ id: 4, name: 'Root', parent: null, line: 2 }]);
  });

  it('when a kept row is bad, then the error names its line and the reason', () => {
    expect(problemsOf(crlf(BANNER, HEADER, row('1', '', 'Root'), row('2', '1', '  ')))).toEqual([{ line: 4, reason: 'Name is empty' }]);
  });

  it('when several rows are bad, then every problem is reported, by line', () => {
    const text = crlf(
      BANNER,
      HEADER,
      row('1', '', 'Root'),
      row('1', '', 'Root again'),
      row('3', '77', 'Orphan'),
      row('4', '4', 'Own parent'),
      row('5', '6', 'Loop A'),
      row('6', '5', 'Loop B'),
      row('1.5', '', 'Odd id'),
      row('', '1', 'No id'),
      row('0', '', 'Zero'),
      row('9', 'abc', 'Alphanumeric parent'),
      row('10', '1000', 'Extension parent'),
      row('11', '1', 'x'.repeat(256)),
    );
    expect(problemsOf(text)).toEqual([
      { line: 4, reason: 'duplicate Unique ID 1 (first on line 3)' },
      { line: 5, reason: 'Parent 77 is not a topical row of the file' },
      { line: 6, reason: 'Parent 4 is the row itself' },
      { line: 7, reason: 'Parent 6 leads into a cycle of parents' },
      { line: 8, reason: 'Parent 5 leads into a cycle of parents' },
      { line: 9, reason: 'Unique ID "1.5" is neither an integer nor an alphanumeric id' },
      { line: 10, reason: 'Unique ID is empty' },
      { line: 11, reason: 'Unique ID 0 is not a valid id' },
      { line: 12, reason: 'Parent "abc" is not the id of a topical row (an integer below 1000)' },
      { line: 13, reason: 'Parent "1000" is not the id of a topical row (an integer below 1000)' },
      { line: 14, reason: 'Name is longer than 255 characters' },
    ]);
  });

  it('when the message is built, then it starts with the first lines and their reasons', () => {
    expect(() => parseTaxonomy(crlf(HEADER, row('1', '', 'Root'), row('2', '9', 'Orphan')))).toThrow(
      'invalid taxonomy file: line 3: Parent 9 is not a topical row of the file',
    );
  });

  it('when there are more than ten problems, then the message shows ten and counts the rest', () => {
    const rows = Array.from({ length: 12 }, (_, index) => row(String(index + 1), '', ''));
    expect(() => parseTaxonomy(crlf(HEADER, ...rows))).toThrow(/line 11: Name is empty; and 2 more$/);
  });

  it('when the header is missing, then line 2 is named', () => {
    expect(problemsOf(crlf(BANNER, row('1', '', 'Root')))).toEqual([
      { line: 2, reason: 'expected the column header line (Unique ID, Parent, Name) as line 1 or 2' },
    ]);
  });

  it('when the file is empty, then line 1 is named', () => {
    expect(problemsOf('')).toEqual([{ line: 1, reason: 'the file is empty' }]);
  });

  it('when the file has no topical row, then that is the problem', () => {
    expect(problemsOf(crlf(BANNER, HEADER, row('abc', '', 'Only alphanumeric'), row('1000', '', 'Only extension')))).toEqual([
      { line: 4, reason: 'no topical rows (integer ids below 1000) in the file' },
    ]);
  });
});
