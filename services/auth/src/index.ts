export { createApp } from './app';
export { loadConfig, type AuthConfig } from './config';
export { createDeps, type AuthDeps, type ProvidedDeps } from './deps';
export { startAuthService, type StartAuthServiceOptions } from './service';
