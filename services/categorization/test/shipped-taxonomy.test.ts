import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TAXONOMY_FILE } from '../src/config';

/** The official file's digest (IAB Tech Lab Taxonomies, commit b7acdcaa, see data/README.md). */
const UPSTREAM_SHA256 = 'f2ae63567f2ad21caeaf0c712e47e8f71c4feff4308687dbeb504dd702f728d6';
/** The verified copy beside the repository in the development setup; absent in a fresh clone. */
const SHARED_COPY = path.resolve(__dirname, '../../../../shared/data/iab/Content Taxonomy 2.2.tsv');

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('the IAB taxonomy that ships with the service', () => {
  it('when the shipped file is hashed, then it is byte for byte the official Content Taxonomy 2.2', () => {
    expect(sha256(DEFAULT_TAXONOMY_FILE)).toBe(UPSTREAM_SHA256);
  });

  it('when the shipped file is read, then it keeps the upstream CRLF line endings and its 698 topical rows', () => {
    const text = readFileSync(DEFAULT_TAXONOMY_FILE, 'utf8');
    expect(text.split('\r\n').length).toBe(1200);
    const topical = text.split('\r\n').filter((line) => /^[0-9]+\t/.test(line) && Number(line.split('\t')[0]) < 1000);
    expect(topical).toHaveLength(698);
  });

  it('when the attribution and the licence are looked for, then they sit beside the data file', () => {
    const folder = path.dirname(DEFAULT_TAXONOMY_FILE);
    expect(readFileSync(path.join(folder, 'README.md'), 'utf8')).toContain('Creative Commons Attribution 3.0');
    expect(readFileSync(path.join(folder, 'LICENSE-IAB-Taxonomies.md'), 'utf8')).toContain('Creative Commons Attribution 3.0 License');
  });

  // The one place that may read ../shared: the verified copy, when the development setup has it
  // (a fresh clone has nothing beside it; the upstream digest above stands in for it then).
  it('when the verified copy beside the repository is there, then the shipped file equals it', () => {
    const reference = existsSync(SHARED_COPY) ? sha256(SHARED_COPY) : UPSTREAM_SHA256;
    expect(sha256(DEFAULT_TAXONOMY_FILE)).toBe(reference);
  });
});
