export { runCategoriesCli } from './cli';
export { DEFAULT_TAXONOMY_FILE, loadConfig, type CategorizationConfig } from './config';
export { CATEGORIZATION_NEEDS } from './deps';
export { runCategorizationService, startCategorizationService } from './service';
