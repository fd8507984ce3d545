/** `pnpm start`: all four services in one process (see scripts/platform.ts). */
import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain } from '@platform/runtime';
import { ensureAccountPageBuilt } from './account-page-build';
import { startPlatform } from './platform';
import { startBanner } from './start-banner';

runMain(async () => {
  // The user service serves the pages' builds; from source, build them first when missing or old.
  ensureAccountPageBuilt((line) => process.stdout.write(`${line}\n`));
  const platform = await startPlatform(process.env);
  process.stdout.write(startBanner(platform));
  exitOnSignals(() => [{ name: 'platform', url: '', port: 0, stop: () => platform.stop() }], createLogger({ service: 'platform' }));
});
