/**
 * The releases CHANGELOG.md records (docs/operations.md, Releases): each a version, a date and
 * the commit the tag `v<version>` points at; on top, at most one release being prepared. The
 * tests find the previous release here, so that they run in a clone that fetched no tags.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');

export interface Release {
  version: string;
  /** Undefined for the release being prepared. */
  date?: string;
  commit?: string;
}

const RELEASED = /^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2}) — commit ([0-9a-f]{40})$/;
const UNRELEASED = /^## (\d+\.\d+\.\d+) — unreleased$/;

/** Every release heading of the CHANGELOG, newest first; a heading of another shape is an error. */
export function changelogReleases(text = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8')): Release[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('## '))
    .map((line) => {
      const released = RELEASED.exec(line);
      if (released) return { version: released[1] as string, date: released[2] as string, commit: released[3] as string };
      const unreleased = UNRELEASED.exec(line);
      if (unreleased) return { version: unreleased[1] as string };
      throw new Error(`CHANGELOG.md: "${line}" is neither "## <version> — <date> — commit <sha>" nor "## <version> — unreleased"`);
    });
}

export function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();
}

/** The commit a tag names, or undefined when the clone has no such tag. */
export function taggedCommit(tag: string): string | undefined {
  try {
    return git(['rev-parse', '--verify', '--quiet', `refs/tags/${tag}^{commit}`]);
  } catch {
    return undefined;
  }
}

/** The newest release that has been cut: what is running when this checkout is rolled out. */
export function previousRelease(releases = changelogReleases()): Required<Release> {
  const found = releases.find((release): release is Required<Release> => release.commit !== undefined);
  if (!found) throw new Error('CHANGELOG.md names no released commit');
  return found;
}

/** The release's commit: its tag's when the clone has the tag (and it must agree), else the CHANGELOG's. */
export function releaseCommit(release: Required<Release>): string {
  const tagged = taggedCommit(`v${release.version}`);
  if (tagged !== undefined && tagged !== release.commit)
    throw new Error(`tag v${release.version} is on ${tagged}, CHANGELOG.md says ${release.commit}`);
  return release.commit;
}
