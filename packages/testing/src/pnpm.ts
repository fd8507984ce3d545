import { spawnSync } from 'node:child_process';

const onPath = (): boolean => spawnSync('pnpm', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * pnpm itself: the one running the tests (`pnpm test`), else the one on PATH, else pnpm 10
 * through npx (a machine with Node alone, as the README allows).
 */
export const pnpmCommand: readonly string[] = process.env.npm_execpath?.includes('pnpm')
  ? [process.execPath, process.env.npm_execpath]
  : onPath()
    ? ['pnpm']
    : ['npx', '--yes', 'pnpm@10'];

/** Runs `pnpm <args>` in `cwd` with only PATH and HOME of this environment; throws with its output if it fails. */
export function runPnpm(args: string[], cwd: string): void {
  const [command, ...rest] = pnpmCommand;
  const result = spawnSync(command as string, [...rest, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  if (result.status !== 0)
    throw new Error(`pnpm ${args.join(' ')} failed: ${result.error?.message ?? `exit ${result.status}`}\n${result.stdout}${result.stderr}`);
}
