export { runCategoriesCli } from './cli';
export { DEFAULT_TAXONOMY_FILE, loadConfig, type CategorizationConfig } from './config';
export type { ProvidedDeps } from './deps';
export { startCategorizationService, type StartCategorizationOptions } from './service';
