export { createApp } from './app';
export { loadConfig, type NotifierConfig } from './config';
export { NOTIFIER_NEEDS, type NotifierDeps } from './deps';
export { runNotifierService, startNotifierService, type NotifierService } from './service';
