/**
 * The baselines of `pnpm bench`, each in its own process, measured in the same run as the
 * platform: bare express, the seed-flow floor, a plain balance read, node-oidc-provider (client credentials
 * on Redis) and express sending the category list as one precomputed identity body.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchAccount } from './issuance-scenarios';

type Start = (
  script: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  nodeArgs?: readonly string[],
) => Promise<{ child: ChildProcess; output: () => string }>;

export interface Baselines {
  bare: string;
  floor: string;
  oidc: string;
  /** Process ids, for the CPU each request costs. */
  pids: { bare: number | undefined; floor: number | undefined; oidc: number | undefined };
  /** Resolves once every baseline process has exited (and written its profile under --cpu-prof). */
  stop(): Promise<void>;
}

const LISTENING = /listening (\S+)/;

export async function startBaselines(
  start: Start,
  options: {
    redisUrl: string;
    databaseUrl: string;
    keyPrefix: string;
    account: BenchAccount;
    categoriesBody: Buffer;
    nodeArgs?: readonly string[];
  },
): Promise<Baselines> {
  const nodeArgs = options.nodeArgs ?? [];
  const bodyFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'categories.json');
  writeFileSync(bodyFile, options.categoriesBody);
  const base = { PATH: process.env.PATH, REDIS_URL: options.redisUrl };
  const started = await Promise.all([
    start('bench/bare-express.ts', { ...base, CATEGORIES_BODY_FILE: bodyFile }, LISTENING, nodeArgs),
    start('bench/floors.ts', { ...base, REDIS_KEY_PREFIX: options.keyPrefix, DATABASE_URL: options.databaseUrl }, LISTENING, nodeArgs),
    start(
      'bench/oidc-provider.mts',
      { ...base, BENCH_CLIENT_ID: String(options.account.id), BENCH_CLIENT_SECRET: options.account.apiKey },
      LISTENING,
      nodeArgs,
    ),
  ]);
  const [bare, floor, oidc] = started.map(({ output }) => (LISTENING.exec(output()) as RegExpExecArray)[1] as string) as [
    string,
    string,
    string,
  ];
  const [barePid, floorPid, oidcPid] = started.map(({ child }) => child.pid);
  return {
    bare,
    floor,
    oidc,
    pids: { bare: barePid, floor: floorPid, oidc: oidcPid },
    async stop() {
      await Promise.all(
        started.map(({ child }) => {
          const exited =
            child.exitCode !== null || child.signalCode !== null
              ? Promise.resolve()
              : new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          return exited;
        }),
      );
    },
  };
}
