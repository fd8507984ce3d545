/** `pnpm start`: all four services in one process (see scripts/platform.ts). */
import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain } from '@platform/runtime';
import { ensureAccountPageBuilt } from './account-page-build';
import { startPlatform, walkThroughExports } from './platform';

runMain(async () => {
  // The user service serves the page's build; from source, build it first when it is missing or old.
  ensureAccountPageBuilt((line) => process.stdout.write(`${line}\n`));
  const platform = await startPlatform(process.env);
  const lines = [
    '',
    `Account access platform is running${platform.embedded.length > 0 ? ` (embedded: ${platform.embedded.join(', ')})` : ''}`,
    `  auth            ${platform.urls.auth}`,
    `  user            ${platform.urls.user}`,
    `  categorization  ${platform.urls.categorization}`,
    `  notifier        ${platform.urls.notifier}`,
    `  account page    ${platform.urls.user}/account/`,
    // Printed once for the operator only when generated here; a given token is never printed (§1).
    `  admin token     ${platform.adminTokenGenerated ? `${platform.adminToken} (generated; set ADMIN_TOKEN to choose one)` : 'from ADMIN_TOKEN'}`,
    `  data folder     ${platform.dataDir} (stop, then delete it to start afresh)`,
    '',
    'For the README walk-through and pnpm admin, in another shell:',
    `  export ${walkThroughExports(platform).join(' ')}`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  exitOnSignals(() => [{ name: 'platform', url: '', port: 0, stop: () => platform.stop() }], createLogger({ service: 'platform' }));
});
