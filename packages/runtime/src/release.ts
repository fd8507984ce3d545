import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What `GET /version` answers (CONTRACT §8): the release's semver and the commit it was built from. */
export interface Release {
  version: string;
  commit: string;
}

const SHA = /^[0-9a-f]{7,40}$/;

/**
 * The commit: GIT_COMMIT when the build sets it (an image holds no .git: the Dockerfile bakes the
 * build argument into the environment), else the checkout's HEAD (a service run from a clone).
 * Read here rather than in a service's config: it describes the code, not the deployment.
 */
function commitOf(environment: NodeJS.ProcessEnv): string {
  const given = environment.GIT_COMMIT?.trim().toLowerCase();
  if (given !== undefined && SHA.test(given)) return given;
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    const sha = head.toString().trim();
    return SHA.test(sha) ? sha : 'unknown';
  } catch {
    return 'unknown';
  }
}

let running: Release | undefined;

/**
 * The running release, read once: every workspace package carries the release's version (the
 * releases test holds them to the CHANGELOG), so this package's own package.json names it, from
 * `src/` and from `dist/` alike, and in a deployed image too.
 */
export function runningRelease(environment: NodeJS.ProcessEnv = process.env): Release {
  if (running) return running;
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
  running = { version: manifest.version, commit: commitOf(environment) };
  return running;
}
