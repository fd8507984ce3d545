export { createApp } from './app';
export { runCategoriesCli } from './cli';
export { DEFAULT_TAXONOMY_FILE, loadConfig, type CategorizationConfig } from './config';
export { CATEGORIZATION_NEEDS, type CategorizationDeps } from './deps';
export { runCategorizationService, startCategorizationService } from './service';
