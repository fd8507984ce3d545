/**
 * The account page's Vite build, for the commands that run from source: `pnpm start` builds the
 * page when its build is missing or older than its sources, and so does the jest global setup
 * (the browser tests and the deployed user service need it). `pnpm build` always builds it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
export const ACCOUNT_PAGE_DIR = path.join(ROOT, 'packages/account-page');
const BUILT = path.join(ACCOUNT_PAGE_DIR, 'dist/index.html');
/** What the page is built from: its own files and the client package it imports. */
const INPUTS = [
  path.join(ACCOUNT_PAGE_DIR, 'index.html'),
  path.join(ACCOUNT_PAGE_DIR, 'vite.config.ts'),
  path.join(ACCOUNT_PAGE_DIR, 'package.json'),
  path.join(ACCOUNT_PAGE_DIR, 'src'),
  path.join(ROOT, 'packages/client/src'),
];

function newestChange(file: string): number {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(file).map((name) => newestChange(path.join(file, name))));
}

/** Whether dist/ is missing or older than a source file. */
export function accountPageStale(): boolean {
  if (!existsSync(BUILT)) return true;
  const built = statSync(BUILT).mtimeMs;
  return INPUTS.some((input) => newestChange(input) > built);
}

/** Runs `vite build` in the page's package; returns its output when it fails. */
export function buildAccountPage(): { ok: true } | { ok: false; output: string } {
  const requireFromPage = createRequire(path.join(ACCOUNT_PAGE_DIR, 'package.json'));
  let vite: string;
  try {
    const manifest = requireFromPage.resolve('vite/package.json');
    vite = path.join(path.dirname(manifest), 'bin/vite.js');
  } catch {
    return { ok: false, output: 'vite is not installed: run pnpm install' };
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: ACCOUNT_PAGE_DIR, encoding: 'utf8' });
  return result.status === 0 ? { ok: true } : { ok: false, output: `${result.stdout}${result.stderr}` };
}

/** Builds the page unless its build is current; `log` hears what happens. Returns whether a current build exists. */
export function ensureAccountPageBuilt(log: (line: string) => void): boolean {
  if (!accountPageStale()) return true;
  log('Building the account page (vite build in packages/account-page)…');
  const result = buildAccountPage();
  if (!result.ok) log(`The account page could not be built; /account/ will say so.\n${result.output}`);
  return result.ok;
}
