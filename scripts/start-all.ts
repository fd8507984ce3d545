/** `pnpm start`: all four services in one process (see scripts/platform.ts). */
import { createLogger, exitOnSignals, runMain } from '@platform/common';
import { startPlatform } from './platform';

runMain(async () => {
  const platform = await startPlatform(process.env);
  const lines = [
    '',
    `Account access platform is running${platform.embedded.length > 0 ? ` (embedded: ${platform.embedded.join(', ')})` : ''}`,
    `  auth            ${platform.urls.auth}`,
    `  user            ${platform.urls.user}`,
    `  categorization  ${platform.urls.categorization}`,
    `  notifier        ${platform.urls.notifier}`,
    `  admin token     ${platform.adminToken}`,
    `  data folder     ${platform.dataDir} (stop, then delete it to start afresh)`,
    '',
  ];
  // The admin token is printed once for the operator on purpose; it never goes to a log line.
  process.stdout.write(`${lines.join('\n')}\n`);
  exitOnSignals(() => [{ name: 'platform', url: '', port: 0, stop: () => platform.stop() }], createLogger({ service: 'platform' }));
});
