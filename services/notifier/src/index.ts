export { loadConfig, type NotifierConfig } from './config';
export { NOTIFIER_NEEDS } from './deps';
export { runNotifierService, startNotifierService, type NotifierService } from './service';
