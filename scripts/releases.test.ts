/**
 * Releases (CONTRACT §8): the CHANGELOG's headings, the commits they name and the versions the
 * packages carry (GET /version answers the packages' version) agree.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, changelogReleases, git, previousRelease, releaseCommit, taggedCommit } from './releases';

const semver = (version: string): number[] => version.split('.').map(Number);
const newer = (a: string, b: string): boolean => {
  const [x, y] = [semver(a), semver(b)];
  const index = x.findIndex((part, at) => part !== y[at]);
  return index >= 0 && (x[index] as number) > (y[index] as number);
};

describe('CHANGELOG.md', () => {
  const releases = changelogReleases();

  it('when read, then newest first, strictly descending versions, and only the top one unreleased', () => {
    expect(releases.length).toBeGreaterThan(0);
    const outOfOrder = releases.slice(1).filter((release, index) => !newer(releases[index]?.version as string, release.version));
    expect(outOfOrder).toEqual([]);
    expect(releases.slice(1).filter((release) => release.commit === undefined)).toEqual([]);
  });

  it('when a release names its commit, then the commit is in this history and its tag, where the clone has it, agrees', () => {
    const cut = releases.filter((release) => release.commit !== undefined) as Array<Required<(typeof releases)[number]>>;
    for (const release of cut) {
      expect(() => git(['merge-base', '--is-ancestor', release.commit, 'HEAD'])).not.toThrow();
      expect(releaseCommit(release)).toBe(release.commit);
      expect([undefined, release.commit]).toContain(taggedCommit(`v${release.version}`));
    }
    expect(previousRelease(releases)).toBe(cut[0]);
  });

  it('when a heading is of another shape, then reading fails and names it', () => {
    expect(() => changelogReleases('# Changelog\n\n## 0.3.0 - 2026-12-01\n')).toThrow('"## 0.3.0 - 2026-12-01"');
  });
});

describe('package versions', () => {
  it('when every workspace package.json is read, then each carries the top release’s version (the one /version answers)', () => {
    const top = changelogReleases()[0]?.version;
    const folders = ['packages', 'services'].flatMap((parent) =>
      readdirSync(path.join(ROOT, parent), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => path.join(parent, entry.name)),
    );
    const versions = Object.fromEntries(
      ['.', ...folders].map((folder) => {
        const manifest = JSON.parse(readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8')) as { version?: string };
        return [folder, manifest.version];
      }),
    );
    expect(versions).toEqual(Object.fromEntries(Object.keys(versions).map((folder) => [folder, top])));
  });
});
