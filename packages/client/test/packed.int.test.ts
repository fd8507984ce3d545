/**
 * The package as a customer gets it: `pnpm pack` (which builds dist/ first), the tarball
 * installed into a fresh Node project with `npm install --offline` (the package has no runtime
 * dependency, so no registry is asked), then the README's example and the installed CLI run
 * there against the running platform. The same tarball then goes into a fresh web project with
 * Vite (from the npm registry), whose dev server serves a page that Debian's Chromium opens: the
 * client calls the platform from the browser, across origins. Nothing here resolves to the
 * workspace's sources.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, type Browser } from '../../../tests/browser/browser.js';
import { startTestPlatform, type TestPlatform } from './platform.js';
import { createViteProject, startViteDevServer, type ViteDevServer } from './vite-project.js';

const ROOT = path.resolve(__dirname, '../../..');
const PACKAGE = path.join(ROOT, 'packages/client');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

/** pnpm as the test runs under it (`pnpm test`), else as the README runs it. */
function pnpm(args: string[], cwd: string): SpawnSyncReturns<string> {
  const execPath = process.env.npm_execpath ?? '';
  const [command, prefix] = /pnpm\.c?js$/.test(execPath) ? [process.execPath, [execPath]] : ['npx', ['--yes', 'pnpm@10']];
  return spawnSync(command, [...prefix, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

/**
 * Runs a process without blocking: the platform answers from this process's event loop, so a
 * synchronous spawn of a client would wait for itself.
 */
function run(
  command: string,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, ...(env ? { env } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The README's TypeScript example, verbatim. */
function readmeExample(): string {
  const readme = readFileSync(path.join(PACKAGE, 'README.md'), 'utf8');
  const block = /```ts\n(import \{ AccountAccessClient[\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('the README has no ts example importing AccountAccessClient');
  return block;
}

describe('the packed @platform/client in a fresh project', () => {
  let platform: TestPlatform;
  let work: string;
  let project: string;
  let packed: Record<string, unknown>;
  let tarballPath: string;

  beforeAll(async () => {
    platform = await startTestPlatform();
    work = mkdtempSync(path.join(os.tmpdir(), 'client-packed-'));
    const pack = pnpm(['pack', '--pack-destination', work], PACKAGE);
    expect(pack.status).toBe(0);
    const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
    const { version } = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
    expect(tarball).toBe(`platform-client-${version}.tgz`);
    tarballPath = path.join(work, tarball ?? '');
    project = path.join(work, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh-project', private: true, type: 'module' }));
    const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarballPath], {
      cwd: project,
      encoding: 'utf8',
    });
    expect({ status: install.status, stderr: install.stderr }).toMatchObject({ status: 0 });
    packed = JSON.parse(readFileSync(path.join(project, 'node_modules/@platform/client/package.json'), 'utf8')) as Record<string, unknown>;
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const environment = (apiKey: string): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    API_KEY: apiKey,
    AUTH_URL: platform.urls.auth,
    USER_URL: platform.urls.user,
    CATEGORIZATION_URL: platform.urls.categorization,
  });

  it('when installed, then its package.json is public and points only at dist, with no development condition', () => {
    expect(packed.private).toBeUndefined();
    expect(packed.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' });
    expect(packed.bin).toEqual({ 'account-access': 'dist/bin.js' });
    expect(JSON.stringify(packed)).not.toContain('src/');
    const installed = readdirSync(path.join(project, 'node_modules/@platform/client'));
    expect(installed.sort()).toEqual(['README.md', 'dist', 'package.json']);
  });

  it('when the README example runs in the project, then every call answers as the README says', async () => {
    const account = await platform.anAccount({ '1': 100 });
    writeFileSync(path.join(project, 'example.mts'), readmeExample());
    const example = await run(TSX, ['example.mts'], project, environment(account.apiKey));
    expect({ status: example.status, stderr: example.stderr }).toEqual({ status: 0, stderr: '' });
    expect(example.stdout).toContain("{ productId: 1, productName: 'WHOIS API', credits: 100 }");
    expect(example.stdout).toContain("698 { id: 'IAB-603', name: '3-D Graphics', parent: 'IAB-602' }");
    expect(example.stdout).toContain("422 422 { productId: [ 'The selected product id is invalid.' ] }");
    expect(example.stdout.trim().split('\n').at(-1)).toBe('true');
  }, 60_000);

  it('when plain Node imports the installed package, then the client calls the platform', async () => {
    const account = await platform.anAccount({ '7': 9 });
    const script = `import { AccountAccessClient } from '@platform/client';
      const client = new AccountAccessClient({ apiKey: process.env.API_KEY, authUrl: process.env.AUTH_URL, userUrl: process.env.USER_URL, categorizationUrl: process.env.CATEGORIZATION_URL });
      console.log(JSON.stringify({ balance: await client.balance(), usage: await client.usageHistory({ days: 1 }) }));`;
    writeFileSync(path.join(project, 'probe.mjs'), script);
    const probe = await run(process.execPath, ['probe.mjs'], project, environment(account.apiKey));
    expect(probe.stderr).toBe('');
    expect(JSON.parse(probe.stdout)).toEqual({ balance: [{ productId: 7, productName: 'Email Verification API', credits: 9 }], usage: [] });
  });

  it('when the installed CLI is asked for help and for the balance, then it answers', async () => {
    const bin = path.join(project, 'node_modules/.bin/account-access');
    const help = await run(bin, ['--help'], project);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage-history');
    const account = await platform.anAccount({ '1': 5 });
    const balance = await run(bin, ['balance', '--product-id', '1'], project, environment(account.apiKey));
    expect({ status: balance.status, out: JSON.parse(balance.stdout) as unknown }).toEqual({
      status: 0,
      out: [{ productId: 1, productName: 'WHOIS API', credits: 5 }],
    });
  });

  describe("under Vite's dev server, in Chromium", () => {
    let vite: ViteDevServer | undefined;
    let browser: Browser | undefined;

    beforeAll(async () => {
      const web = path.join(work, 'web');
      createViteProject(web, tarballPath);
      vite = await startViteDevServer(web);
      browser = await launchBrowser();
    }, 150_000);

    afterAll(async () => {
      await browser?.close();
      await vite?.stop();
    });

    it('when a page imports the installed package, then the client takes a token and reads the platform across origins', async () => {
      const account = await platform.anAccount({ '7': 9 });
      const page = await (browser as Browser).context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      const query = new URLSearchParams({ apiKey: account.apiKey, ...platform.clientUrls });
      await page.goto(`${(vite as ViteDevServer).url}?${query.toString()}`);
      const result = page.locator('#result[data-state]');
      await result.waitFor({ timeout: 20_000 });
      expect({ state: await result.getAttribute('data-state'), pageErrors }).toEqual({ state: 'done', pageErrors: [] });
      expect(JSON.parse((await result.textContent()) ?? '')).toEqual({
        balance: [{ productId: 7, productName: 'Email Verification API', credits: 9 }],
        categories: 698,
        first: { id: 'IAB-603', name: '3-D Graphics', parent: 'IAB-602' },
        // The second list came as a 304 on the first's ETag: the browser let the client read ETag and send If-None-Match.
        sameList: true,
        refused: { status: 422, code: 422, messages: { productId: ['The selected product id is invalid.'] } },
      });
      // The client came from the installed tarball, as Vite's dependency optimizer bundled it, not from the workspace.
      const served = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name));
      expect(served.some((name) => name.includes('/node_modules/.vite/deps/@platform_client.js'))).toBe(true);
      await page.close();
    }, 45_000);
  });
});
