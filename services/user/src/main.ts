import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { runUserService } from './service';

runMain(async () => {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'user', level: config.logLevel });
  const service = await runUserService({ config, logger });
  exitOnSignals(() => [service], logger);
});
