/** `pnpm generate:config-docs`: writes docs/configuration.md from the configuration schemas (scripts/config-docs.ts). */
import { writeFileSync } from 'node:fs';
import { runMain } from '@platform/runtime';
import { CONFIGURATION_DOC, renderConfigurationDoc } from './config-docs';

runMain(() => {
  writeFileSync(CONFIGURATION_DOC, renderConfigurationDoc());
  process.stdout.write(`wrote ${CONFIGURATION_DOC}\n`);
  return Promise.resolve();
});
