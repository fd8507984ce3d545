/**
 * Dependencies with a published advisory stay at or above the release that fixed it, and CI
 * installs exactly what the lockfile says (SECURITY.md, "Dependencies").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..');

let lockedPackages: string[] | undefined;

/** Every version of `name` the lockfile installs. */
function lockedVersions(name: string): string[] {
  lockedPackages ??= Object.keys(
    (parse(readFileSync(path.join(ROOT, 'pnpm-lock.yaml'), 'utf8')) as { packages?: Record<string, unknown> }).packages ?? {},
  );
  return lockedPackages.filter((key) => key.startsWith(`${name}@`)).map((key) => key.slice(name.length + 1).replace(/\(.*$/, ''));
}

function atLeast(version: string, floor: string): boolean {
  const [a, b] = [version, floor].map((text) => text.split('-')[0]?.split('.').map(Number) ?? []);
  for (let index = 0; index < 3; index += 1) {
    const difference = (a?.[index] ?? 0) - (b?.[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

describe('dependencies with advisories', () => {
  it.each([
    // Address parser (quadratic time), recipient and IDN checks, `raw` option file access: fixed in 9.1.1.
    ['nodemailer', '9.1.1'],
    // Missing buffer bounds check in v3/v5/v6 (GHSA-w5hq-g745-h8pq): fixed in 11.1.1.
    ['uuid', '11.1.1'],
  ])('when the lockfile installs %s, then every copy is at least %s', (name, floor) => {
    expect(lockedVersions(name).filter((version) => !atLeast(version, floor))).toEqual([]);
  });

  it('when the lockfile installs glob 10 or 11, then it has the CLI fix (10.5.0 / 11.1.0)', () => {
    const unpatched = lockedVersions('glob').filter(
      (version) => (version.startsWith('10.') && !atLeast(version, '10.5.0')) || (version.startsWith('11.') && !atLeast(version, '11.1.0')),
    );
    expect(unpatched).toEqual([]);
  });

  it('when CI installs, then the lockfile is frozen', () => {
    expect(readFileSync(path.join(ROOT, '.ci/run'), 'utf8')).toMatch(/^pnpm install --frozen-lockfile/m);
  });
});
