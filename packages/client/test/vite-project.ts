/**
 * A fresh web project for the packed client: its tarball and Vite, installed by npm (Vite from
 * the registry, at the version the workspace's pages build with), an index.html and a main.js
 * that import `@platform/client` as a customer's page would, and Vite's dev server serving it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort } from '@platform/testing';

const ROOT = path.resolve(__dirname, '../../..');

/** The Vite that pnpm-lock.yaml installs for the account page: the one version the repository tests with. */
function lockedViteVersion(): string {
  const manifest = createRequire(path.join(ROOT, 'packages/account-page/package.json')).resolve('vite/package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>@platform/client under Vite</title></head>
  <body>
    <pre id="result">pending</pre>
    <script type="module" src="/main.js"></script>
  </body>
</html>
`;

/**
 * The page: the client built from the query string's key and service URLs, three calls across
 * origins (a token and the balance, the category list twice so that the second is a 304 on the
 * first's ETag, an error envelope), and what they answered written to #result as JSON.
 */
const MAIN_JS = `import { AccountAccessClient, ApiError } from '@platform/client';

const query = new URLSearchParams(location.search);
const client = new AccountAccessClient({
  apiKey: query.get('apiKey'),
  authUrl: query.get('authUrl'),
  userUrl: query.get('userUrl'),
  categorizationUrl: query.get('categorizationUrl'),
});
const result = document.getElementById('result');
try {
  const balance = await client.balance();
  const categories = await client.categories({ order: 'ABC' });
  const again = await client.categories({ order: 'ABC' });
  const refused = await client.balance({ productId: 999 }).then(
    () => 'answered',
    (error) => (error instanceof ApiError ? { status: error.status, code: error.code, messages: error.messages } : String(error)),
  );
  result.textContent = JSON.stringify({ balance, categories: categories.length, first: categories[0], sameList: again === categories, refused });
  result.dataset.state = 'done';
} catch (error) {
  result.textContent = JSON.stringify({ failed: error instanceof ApiError ? { status: error.status, code: error.code } : String(error) });
  result.dataset.state = 'failed';
}
`;

/** Writes the project into `dir` and installs the tarball and Vite there (npm asks the registry for Vite). */
export function createViteProject(dir: string, tarball: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'fresh-vite-project', private: true, type: 'module' }));
  writeFileSync(path.join(dir, 'index.html'), INDEX_HTML);
  writeFileSync(path.join(dir, 'main.js'), MAIN_JS);
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', tarball, `vite@${lockedViteVersion()}`], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (install.status !== 0) throw new Error(`npm install failed (${install.status}):\n${install.stdout}${install.stderr}`);
}

export interface ViteDevServer {
  /** Where the dev server serves the project's index.html. */
  url: string;
  stop(): Promise<void>;
}

/** Starts `vite` (the dev server) in the project; resolves with its URL once it says it is ready. */
export async function startViteDevServer(dir: string, timeoutMs = 30_000): Promise<ViteDevServer> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      path.join(dir, 'node_modules/vite/bin/vite.js'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--strictPort',
      '--clearScreen',
      'false',
    ],
    { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`vite did not say it was ready within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const local = /Local:\s+(http:\/\/\S+)/.exec(output)?.[1];
      if (local === undefined) return;
      clearTimeout(deadline);
      resolve(local);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(deadline);
      reject(new Error(`vite exited (${code}) before it was ready:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
