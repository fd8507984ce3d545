import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain } from '@platform/common';
import { loadConfig } from './config';
import { startNotifierService } from './service';

runMain(async () => {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'notifier', level: config.logLevel });
  const service = await startNotifierService({ config, logger });
  exitOnSignals(() => [service], logger);
});
