export { createApp } from './app';
export { runUserCli } from './cli';
export { loadConfig, type UserConfig } from './config';
export { USER_NEEDS } from './deps';
export { runUserService, startUserService, type UserService } from './service';
