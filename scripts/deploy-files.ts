/** What the deployment checks (k8s, compose, image) share: the services, their ports and config loaders, the files as read. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig as loadAuthConfig } from '@platform/auth/config';
import { loadConfig as loadCategorizationConfig } from '@platform/categorization/config';
import { loadConfig as loadNotifierConfig } from '@platform/notifier/config';
import { loadConfig as loadUserConfig } from '@platform/user/config';

export const ROOT = path.resolve(__dirname, '..');

/** Each service's default port and its configuration loader (`config`: the whole validated object). */
export const SERVICES = {
  auth: {
    port: 8081,
    config: (env: NodeJS.ProcessEnv): object => loadAuthConfig(env),
    load: (env: NodeJS.ProcessEnv) => loadAuthConfig(env).port,
  },
  user: {
    port: 8082,
    config: (env: NodeJS.ProcessEnv): object => loadUserConfig(env),
    load: (env: NodeJS.ProcessEnv) => loadUserConfig(env).port,
  },
  categorization: {
    port: 8083,
    config: (env: NodeJS.ProcessEnv): object => loadCategorizationConfig(env),
    load: (env: NodeJS.ProcessEnv) => loadCategorizationConfig(env).port,
  },
  notifier: {
    port: 8084,
    config: (env: NodeJS.ProcessEnv): object => loadNotifierConfig(env),
    load: (env: NodeJS.ProcessEnv) => loadNotifierConfig(env).port,
  },
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

/** Keys of the Secret a service reads when the operator adds them (k8s/README.md), with stand-in values. */
export const OPTIONAL_SECRET_ENV = {
  METRICS_TOKEN: 'm'.repeat(32),
  DATABASE_DIRECT_URL: 'postgres://app:pw@postgres-primary:5432/platform',
  ADMIN_TOKENS: `ops=${'c'.repeat(40)}`,
  SERVICE_JWT_SECRET_PREVIOUS: 'p'.repeat(48),
};

export interface ComposeService {
  build?: { context: string; args: Record<string, string> };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
}

export const composeText = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
export const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> };

/** The .env a user writes from .env.example: every listed secret filled in. */
export const dotEnv: Record<string, string> = Object.fromEntries(
  readFileSync(path.join(ROOT, '.env.example'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=$/.test(line))
    .map((line) => [line.slice(0, -1), `${line.slice(0, -1).toLowerCase()}-0123456789abcdef0123456789abcdef`]),
);

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?error}` from that .env. */
export const interpolate = (value: string): string =>
  value.replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
    const given = dotEnv[name];
    if (given) return given;
    if (kind === '?') throw new Error(`${name}: ${rest ?? ''}`);
    return rest ?? '';
  });

/** A compose service's environment as the container gets it from that .env. */
export const composeEnvironment = (service: string): Record<string, string> =>
  Object.fromEntries(Object.entries(compose.services[service]?.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]));

/** `kubectl kustomize k8s`: the objects as a cluster receives them. */
export function renderK8s(): { stdout: string; stderr: string; status: number | null; objects: unknown[] } {
  const result = spawnSync('kubectl', ['kustomize', path.join(ROOT, 'k8s')], { encoding: 'utf8' });
  return {
    stdout: result.stdout,
    stderr: result.stderr,
    status: result.status,
    objects: parseAllDocuments(result.stdout).map((doc) => doc.toJS() as unknown),
  };
}
