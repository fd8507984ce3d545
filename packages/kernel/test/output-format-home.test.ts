import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// `outputFormat` is read in one place: the kernel decides the format of a request from its
// route's declared edge (route-edge.ts `decideFormat`, through output-format.ts), and every
// renderer, route and the error handler read that decision. No other production code reads the
// parameter or writes a format onto the request's state.

const ROOT = path.resolve(__dirname, '../../..');
const HOMES = new Set(['packages/wire/src/output-format.ts', 'packages/kernel/src/route-edge.ts']);

// Reading the parameter (`params.get('outputFormat')`, `query.outputFormat`), calling the parser,
// or writing a format onto shared state (`….outputFormat = …`; neither a comparison nor the 422's
// `errors.outputFormat = [message]`).
const READS_OR_WRITES_THE_FORMAT =
  /get\(\s*['"]outputFormat['"]|(?:query|body)\??\.outputFormat\b|\b(?:read|parse)OutputFormat\(|\.outputFormat\s*=\s*(?![\s=[])/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'generated' ? [] : sourceFiles(full);
    return /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** `file:line` of every production line under `folder` that reads outputFormat or writes a format, outside the kernel's home. */
function formatReaders(folder: string): string[] {
  return sourceFiles(path.join(ROOT, folder))
    .filter((file) => !HOMES.has(path.relative(ROOT, file)))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (READS_OR_WRITES_THE_FORMAT.test(line) ? [`${path.relative(ROOT, file)}:${index + 1}`] : [])),
    );
}

const units = ['packages', 'services'].flatMap((group) => readdirSync(path.join(ROOT, group)).map((name) => `${group}/${name}/src`));

describe('where outputFormat is read', () => {
  it('recognises a reading or a write where one is written (so the search below cannot pass by finding nothing)', () => {
    expect(READS_OR_WRITES_THE_FORMAT.test("const value = params.get('outputFormat');")).toBe(true);
    expect(READS_OR_WRITES_THE_FORMAT.test('locals(res).outputFormat = format;')).toBe(true);
    expect(READS_OR_WRITES_THE_FORMAT.test('format = readOutputFormat(params);')).toBe(true);
    expect(READS_OR_WRITES_THE_FORMAT.test("state.outputFormat === 'XML'")).toBe(false);
    expect(READS_OR_WRITES_THE_FORMAT.test("errors.outputFormat = [invalidMessage('outputFormat')];")).toBe(false);
    expect(READS_OR_WRITES_THE_FORMAT.test('outputFormat: formatOf(res),')).toBe(false);
  });

  it('reads it in the kernel', () => {
    const homes = [...HOMES].flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .filter((line) => READS_OR_WRITES_THE_FORMAT.test(line)),
    );
    expect(homes.length).toBeGreaterThan(0);
  });

  it.each(units)('%s neither reads it nor writes a format: it reads the kernel decision', (folder) => {
    expect(formatReaders(folder)).toEqual([]);
  });
});
