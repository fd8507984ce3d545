import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { runCategorizationService } from './service';

runMain(async () => {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'categorization', level: config.logLevel });
  const service = await runCategorizationService({ config, logger });
  exitOnSignals(() => [service], logger);
});
