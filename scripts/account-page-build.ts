/**
 * The Vite builds of the pages the user service serves, for the commands that run from source:
 * the customer's account page (/account/) and the operator console (/admin/). `pnpm start`
 * builds a page when its build is missing or older than its sources, and so does the jest global
 * setup (the browser tests and the deployed user service need them). `pnpm build` always builds them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
export const ACCOUNT_PAGE_DIR = path.join(ROOT, 'packages/account-page');

interface Page {
  name: string;
  dir: string;
  /** Sources beyond the package's own files. */
  extraInputs: string[];
}

/** The pages' shared DOM helpers (@platform/page-dom), bundled into both. */
const PAGE_DOM = path.join(ROOT, 'packages/page-dom/src');

const PAGES: Page[] = [
  { name: 'the account page', dir: ACCOUNT_PAGE_DIR, extraInputs: [path.join(ROOT, 'packages/client/src'), PAGE_DOM] },
  { name: 'the operator console', dir: path.join(ROOT, 'packages/admin-console'), extraInputs: [PAGE_DOM] },
];

/** What a page is built from: its own files (and the packages it imports). */
const inputsOf = (page: Page): string[] => [
  ...['index.html', 'vite.config.ts', 'package.json', 'src'].map((file) => path.join(page.dir, file)),
  ...page.extraInputs,
];

function newestChange(file: string): number {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(file).map((name) => newestChange(path.join(file, name))));
}

/** Whether dist/ is missing or older than a source file. */
function stale(page: Page): boolean {
  const built = path.join(page.dir, 'dist/index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return inputsOf(page).some((input) => newestChange(input) > builtAt);
}

/** Runs `vite build` in the page's package; returns its output when it fails. */
function build(page: Page): { ok: true } | { ok: false; output: string } {
  const requireFromPage = createRequire(path.join(page.dir, 'package.json'));
  let vite: string;
  try {
    const manifest = requireFromPage.resolve('vite/package.json');
    vite = path.join(path.dirname(manifest), 'bin/vite.js');
  } catch {
    return { ok: false, output: 'vite is not installed: run pnpm install' };
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: page.dir, encoding: 'utf8' });
  return result.status === 0 ? { ok: true } : { ok: false, output: `${result.stdout}${result.stderr}` };
}

/** Builds every page unless its build is current; `log` hears what happens. Returns whether current builds exist. */
export function ensureAccountPageBuilt(log: (line: string) => void): boolean {
  let ok = true;
  for (const page of PAGES) {
    if (!stale(page)) continue;
    log(`Building ${page.name} (vite build in ${path.relative(ROOT, page.dir)})…`);
    const result = build(page);
    if (!result.ok) log(`${page.name} could not be built; it will say so.\n${result.output}`);
    ok &&= result.ok;
  }
  return ok;
}
