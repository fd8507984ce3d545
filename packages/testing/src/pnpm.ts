import { spawnSync } from 'node:child_process';

/** pnpm itself: the one running the tests (`pnpm test`), else the one on PATH. */
export const pnpmCommand: readonly string[] = process.env.npm_execpath?.includes('pnpm')
  ? [process.execPath, process.env.npm_execpath]
  : ['pnpm'];

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
