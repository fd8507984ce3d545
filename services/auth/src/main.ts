import '@platform/tracing/register'; // first: with tracing on, the instrumentations must load before what they patch
import { createLogger, exitOnSignals, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { runAuthService } from './service';

runMain(async () => {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'auth', level: config.logLevel });
  const service = await runAuthService({ config, logger });
  exitOnSignals(() => [service], logger);
});
