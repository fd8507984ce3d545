export { createApp } from './app';
export { runUserCli } from './cli';
export { loadConfig, type UserConfig } from './config';
export { createDeps, type ProvidedDeps, type UserDeps } from './deps';
export { startUserService, type StartUserServiceOptions } from './service';
