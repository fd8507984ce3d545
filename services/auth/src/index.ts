export { createApp } from './app';
export { loadConfig, type AuthConfig } from './config';
export { AUTH_NEEDS } from './deps';
export { runAuthService, startAuthService } from './service';
