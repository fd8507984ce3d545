/**
 * The repository stands alone (CONTRACT §1): a clone of it into an empty folder, with nothing
 * beside it, installs and runs `pnpm start` through pnpm itself, as a newcomer would. The clone
 * is of the committed HEAD, so this checks what others get, not the working tree.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { pnpmCommand, readyBody, runPnpm } from '@platform/testing';

const ROOT = path.resolve(__dirname, '..');
const GIVEN_ADMIN_TOKEN = `given-admin-token-0123456789-${Math.random().toString(36).slice(2)}`;

describe('a fresh clone with nothing beside it', () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'aap-clone-'));
  const clone = path.join(parent, 'fresh');
  let child: ChildProcessWithoutNullStreams;
  let output = '';
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    const cloned = spawnSync('git', ['clone', '-q', ROOT, clone], { encoding: 'utf8' });
    if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
    runPnpm(['install', '--offline', '--frozen-lockfile'], clone);
    const [command, ...rest] = pnpmCommand;
    child = spawn(command as string, [...rest, 'start'], {
      cwd: clone,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ADMIN_TOKEN: GIVEN_ADMIN_TOKEN,
        AUTH_PORT: '0',
        USER_PORT: '0',
        CATEGORIZATION_PORT: '0',
        NOTIFIER_PORT: '0',
      },
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 150_000;
    while (!/data folder/.test(output)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`pnpm start did not come up in the clone:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const name of ['auth', 'user', 'categorization', 'notifier']) {
      urls[name] = (new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(output) as RegExpExecArray)[1] as string;
    }
  }, 240_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  });

  it('when the clone is made, then its folder has nothing beside it', () => {
    expect(readdirSync(parent)).toEqual(['fresh']);
  });

  it('when pnpm start runs in it, then all four services are ready and the 698 IAB categories are served', async () => {
    for (const url of Object.values(urls)) {
      expect(await readyBody(url)).toEqual({ status: 'ready' });
    }
    const categories = await request(urls.categorization as string).get('/api/v2/categories');
    expect(categories.status).toBe(200);
    expect((categories.body as Array<{ id: string }>).filter((category) => category.id.startsWith('IAB-'))).toHaveLength(698);
  });

  it('when the admin token comes from the environment, then it is used and never printed', async () => {
    expect(output).toContain('admin token     from ADMIN_TOKEN');
    const account = await request(urls.user as string)
      .get('/admin/v1/accounts/999999999')
      .set('Authorization', `Bearer ${GIVEN_ADMIN_TOKEN}`);
    expect(account.status).toBe(404);
    expect(output).not.toContain(GIVEN_ADMIN_TOKEN);
  });

  it('when pnpm start is sent SIGTERM, then it exits 0 without an ELIFECYCLE line', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).not.toContain('ELIFECYCLE');
    expect(output).not.toContain(GIVEN_ADMIN_TOKEN);
  });
});
