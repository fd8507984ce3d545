/** `pnpm start` as a customer's operator runs it, in a child process, with the URLs it prints. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { pnpmCommand } from '@platform/testing';

const ROOT = path.resolve(__dirname, '../..');
const SERVICES = ['auth', 'user', 'categorization', 'notifier', 'account page'] as const;

export interface StartedPlatform {
  urls: Record<(typeof SERVICES)[number], string>;
  output(): string;
  stop(): Promise<void>;
}

export async function pnpmStart(env: NodeJS.ProcessEnv, timeoutMs = 150_000): Promise<StartedPlatform> {
  const [command, ...args] = pnpmCommand;
  const child: ChildProcessWithoutNullStreams = spawn(command as string, [...args, 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
  const deadline = Date.now() + timeoutMs;
  while (!/data folder/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`pnpm start did not come up:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const urls = Object.fromEntries(
    SERVICES.map((name) => [name, (new RegExp(`^\\s+${name}\\s+(http://\\S+)`, 'm').exec(output) as RegExpExecArray)[1] as string]),
  ) as StartedPlatform['urls'];
  return { urls, output: () => output, stop };
}
