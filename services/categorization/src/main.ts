import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain } from '@platform/common';
import { loadConfig } from './config';
import { startCategorizationService } from './service';

runMain(async () => {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'categorization', level: config.logLevel });
  const service = await startCategorizationService({ config, logger });
  exitOnSignals(() => [service], logger);
});
