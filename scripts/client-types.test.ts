import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sourceNodeArgs } from '@platform/testing';

const ROOT = path.resolve(__dirname, '..');
const GENERATED = path.join(ROOT, 'packages/client/src/generated');

/** `pnpm generate:client --check` in a child process (see client-types.ts for why). */
function check(...args: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [...sourceNodeArgs, 'scripts/client-types.ts', '--check', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: result.status, stderr: result.stderr };
}

describe('the client types generated from the services OpenAPI documents', () => {
  it('when generated again from the services as they are now, then they match the committed files', () => {
    const result = check();
    expect(result).toEqual({ status: 0, stderr: '' });
  }, 60_000);

  it('when a generated file differs from what the documents give, then the check fails and names it', () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
    try {
      cpSync(GENERATED, copy, { recursive: true });
      const user = path.join(copy, 'user.ts');
      writeFileSync(user, readFileSync(user, 'utf8').replace('threshold: number;', 'threshold: string;'));

      const result = check('--dir', copy);

      expect(result.status).toBe(1);
      expect(result.stderr).toContain('generated client types are out of date');
      expect(result.stderr).toContain('user.ts');
      expect(result.stderr).not.toContain('auth.ts');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 60_000);
});
