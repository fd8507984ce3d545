import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain, type RunningService } from '@platform/common';
import { loadConfig } from './config';
import { startUserService } from './service';

runMain(async () => {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'user', level: config.logLevel });
  const service: RunningService = await startUserService({ config, logger });
  exitOnSignals(() => [service], logger);
});
