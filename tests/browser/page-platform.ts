/**
 * The platform under a page test, started once per file: a private database and data folder, and
 * on them `pnpm start` (mode `embedded` of @platform/testing/platform: a process of its own, as an
 * operator runs it) or scripts/platform.ts in this process (where a test needs the webhook seams),
 * with what every page test sets (LOG_LEVEL=warn, ports the OS picks). `stop()` takes down the
 * platform, then the database and the folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createPrivateDatabase, type PrivateDatabase } from '@platform/testing';
import { startPlatform as startTestPlatform } from '@platform/testing/platform';
import { ensureAccountPageBuilt } from '../../scripts/account-page-build';
import { startPlatform, type PlatformSeams } from '../../scripts/platform';
import type { Browser } from './browser';

export interface PagePlatform {
  urls: Record<'auth' | 'user' | 'categorization' | 'notifier' | 'account page', string>;
  database: PrivateDatabase;
  dataDir: string;
  stop(): Promise<void>;
}

export interface PagePlatformOptions {
  /** Names the database (`aap_test_<name>_…`) and the data folder. */
  name: string;
  /** Variables over the page tests' defaults (DATABASE_URL and DATA_DIR are the platform's own). */
  env: Record<string, string>;
  /** `pnpm-start` (default): a child process; `in-process`: scripts/platform.ts with `seams`, the account page built first. */
  how?: 'pnpm-start' | 'in-process';
  seams?: PlatformSeams;
}

export async function startPagePlatform(options: PagePlatformOptions): Promise<PagePlatform> {
  const database = await createPrivateDatabase(options.name);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `aap-${options.name.replace(/_/g, '-')}-`));
  const remove = async (): Promise<void> => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AUTH_PORT: '0',
    USER_PORT: '0',
    CATEGORIZATION_PORT: '0',
    NOTIFIER_PORT: '0',
    ...options.env,
  };
  try {
    let started: Pick<PagePlatform, 'urls' | 'stop'>;
    if (options.how === 'in-process') {
      // The user service serves the account page's build: built first when missing or old.
      ensureAccountPageBuilt(() => undefined);
      const inProcess = await startPlatform(env, options.seams);
      started = { urls: { ...inProcess.urls, 'account page': `${inProcess.urls.user}/account/` }, stop: () => inProcess.stop() };
    } else {
      // As an operator runs `pnpm start`: its own process (HOME for the tools it runs).
      const embedded = await startTestPlatform({ mode: 'embedded', env: { HOME: process.env.HOME ?? '', ...env }, timeoutMs: 150_000 });
      started = {
        urls: { ...embedded.urls, 'account page': `${embedded.urls.user}/account/` },
        stop: async () => void (await embedded.stop()),
      };
    }
    return {
      urls: started.urls,
      database,
      dataDir,
      async stop() {
        await started.stop();
        await remove();
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** A new tab whose Content-Security-Policy complaints (console messages) land in `violations`. */
export async function openWatchedPage(browser: Browser, violations: string[]): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return page;
}

/** How far the page scrolls sideways at its current width (0 or less: nothing overflows). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}
