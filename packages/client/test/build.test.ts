import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const PACKAGE = path.join(ROOT, 'packages/client');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

function run(args: string[], cwd = ROOT): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The package as it ships: its package.json beside dist/, built by `tsc -p packages/client/tsconfig.build.json`. */
describe('the client package build', () => {
  let shipped: string;
  let dist: string;

  beforeAll(() => {
    shipped = mkdtempSync(path.join(os.tmpdir(), 'client-build-'));
    dist = path.join(shipped, 'dist');
    copyFileSync(path.join(PACKAGE, 'package.json'), path.join(shipped, 'package.json'));
    const build = run([TSC, '-p', path.join(PACKAGE, 'tsconfig.build.json'), '--outDir', dist]);
    expect(build).toMatchObject({ status: 0, stdout: '' });
  }, 60_000);

  afterAll(() => {
    rmSync(shipped, { recursive: true, force: true });
  });

  it('when built, then dist holds ES modules with type declarations and no tests', () => {
    for (const file of ['index.js', 'index.d.ts', 'client.d.ts', 'api-error.d.ts', 'generated/user.d.ts', 'bin.js']) {
      expect(existsSync(path.join(dist, file))).toBe(true);
    }
    expect(readdirSync(dist).filter((file) => file.includes('.test.'))).toEqual([]);
    expect(readFileSync(path.join(dist, 'client.js'), 'utf8')).toMatch(/^import \{ ApiError \} from '\.\/api-error\.js';/m);
    expect(readFileSync(path.join(dist, 'bin.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node/);
  });

  it('when Node imports the built package, then the client and ApiError are there', () => {
    const probe = `import { AccountAccessClient, ApiError } from ${JSON.stringify(path.join(dist, 'index.js'))};
      const client = new AccountAccessClient({ apiKey: 'at_x', authUrl: 'http://a', userUrl: 'http://u', categorizationUrl: 'http://c' });
      console.log(typeof client.balance, new ApiError({ status: 401, code: 401, messages: 'no' }) instanceof Error);`;
    expect(run(['--input-type=module', '-e', probe])).toMatchObject({ status: 0, stdout: 'function true\n' });
  });

  it('when the library is read, then only the CLI uses Node APIs, so it runs in browsers', () => {
    const library = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.js') && !['cli.js', 'bin.js'].includes(file),
    );
    expect(library).toContain('client.js');
    for (const file of library) {
      const source = readFileSync(path.join(dist, file), 'utf8');
      expect({ file, node: /from 'node:|require\(|process\./.test(source) }).toEqual({ file, node: false });
    }
  });

  it('when a browser project without Node types compiles against the declarations, then they type-check', () => {
    writeFileSync(
      path.join(shipped, 'consumer.ts'),
      `import { AccountAccessClient, ApiError, type BalanceItem, type Category, type NotificationSettingsPatch } from './dist/index.js';
       const client = new AccountAccessClient({ apiKey: 'at_x', authUrl: '', userUrl: '', categorizationUrl: '', expiresIn: 1800, fetch: (input, init) => fetch(input, init) });
       const patch: NotificationSettingsPatch = { lowBalanceAlert: { threshold: 5 } };
       export async function use(): Promise<[BalanceItem[], readonly Readonly<Category>[], number]> {
         await client.updateNotificationSettings(patch);
         try { return [await client.balance({ productId: 1 }), await client.categories({ order: 'ABC' }), 0]; }
         catch (error) { return [[], [], error instanceof ApiError ? error.status : -1]; }
       }`,
    );
    const compilerOptions = {
      noEmit: true,
      strict: true,
      exactOptionalPropertyTypes: true,
      module: 'nodenext',
      lib: ['ES2022', 'DOM'],
      types: [],
    };
    writeFileSync(path.join(shipped, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    expect(run([TSC, '-p', shipped], shipped)).toMatchObject({ status: 0, stdout: '' });
  }, 60_000);

  it('when the built CLI runs without a command, then it prints the usage and exits 2', () => {
    const result = run([path.join(dist, 'bin.js')]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage: account-access');
  });
});
