/** What the deployment checks (k8s, compose, image) share: the services, their ports and config loaders. */
import path from 'node:path';
import { loadConfig as loadAuthConfig } from '../services/auth/src/config';
import { loadConfig as loadCategorizationConfig } from '../services/categorization/src/config';
import { loadConfig as loadNotifierConfig } from '../services/notifier/src/config';
import { loadConfig as loadUserConfig } from '../services/user/src/config';

export const ROOT = path.resolve(__dirname, '..');

export const SERVICES = {
  auth: { port: 8081, load: (env: NodeJS.ProcessEnv) => loadAuthConfig(env).port },
  user: { port: 8082, load: (env: NodeJS.ProcessEnv) => loadUserConfig(env).port },
  categorization: { port: 8083, load: (env: NodeJS.ProcessEnv) => loadCategorizationConfig(env).port },
  notifier: { port: 8084, load: (env: NodeJS.ProcessEnv) => loadNotifierConfig(env).port },
};
export type ServiceName = keyof typeof SERVICES;
export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

/** The secrets an operator provides (k8s Secret, compose .env), with stand-in values. */
export const SECRET_ENV = {
  DATABASE_URL: 'postgres://app:pw@postgres:5432/platform',
  REDIS_URL: 'redis://redis:6379',
  AMQP_URL: 'amqp://app:pw@rabbitmq:5672',
  SMTP_URL: 'smtp://mail:25',
  ADMIN_TOKEN: 'a'.repeat(48),
  SERVICE_JWT_SECRET: 'b'.repeat(64),
};
