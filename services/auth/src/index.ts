export { createApp } from './app';
export { loadConfig, type AuthConfig } from './config';
export { AUTH_NEEDS, type AuthDeps } from './deps';
export { runAuthService, startAuthService } from './service';
