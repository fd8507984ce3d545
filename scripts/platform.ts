/**
 * The all-in-one composition behind `pnpm start`: the four services in one process, on one set of
 * adapters (openInfrastructure). Each is real when its URL is set and embedded otherwise (CONTRACT §1):
 * DATABASE_URL → else PGlite in DATA_DIR/pg; REDIS_URL → else an in-process access store;
 * AMQP_URL → else an in-process event bus; SMTP_URL → else .eml files in DATA_DIR/outbox.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createLogger, type RunningService } from '@platform/runtime';
import { openInfrastructure } from '@platform/infrastructure';
import { startEmbeddedPostgres } from './embedded-postgres';
import { loadConfig as loadAuthConfig, startAuthService } from '@platform/auth';
import { loadConfig as loadCategorizationConfig, startCategorizationService } from '@platform/categorization';
import { loadConfig as loadNotifierConfig, startNotifierService } from '@platform/notifier';
import { loadConfig as loadUserConfig, startUserService, type UserSeams } from '@platform/user';

export interface Platform {
  services: RunningService[];
  urls: Record<'auth' | 'user' | 'categorization' | 'notifier', string>;
  /** ADMIN_TOKEN as given or generated; undefined when only ADMIN_TOKENS names the admin tokens. */
  adminToken: string | undefined;
  /** Whether the admin token was generated here (ADMIN_TOKEN and ADMIN_TOKENS unset); a given one is never printed. */
  adminTokenGenerated: boolean;
  /** The service-JWT secret when generated here (SERVICE_JWT_SECRET unset); a given one is never printed. */
  generatedServiceJwtSecret: string | undefined;
  /** Which components run embedded in this process. */
  embedded: string[];
  dataDir: string;
  stop(): Promise<void>;
}

const loopback = (url: string): string => url.replace('//0.0.0.0:', '//127.0.0.1:');

/**
 * The e-mails' links: unless an address is given (ACCOUNT_PAGE_URL, SETTINGS_URL, USER_URL), the
 * account page of the user service started here, on whatever port it listens (USER_PORT, 0 = any).
 */
function accountPageLinks(env: NodeJS.ProcessEnv, userUrl: string): { accountUrl?: string; settingsUrl?: string } {
  if (env.ACCOUNT_PAGE_URL || env.SETTINGS_URL || env.USER_URL) return {};
  const accountUrl = `${loopback(userUrl)}/account/`;
  return { accountUrl, settingsUrl: `${accountUrl}#alerts` };
}

const secret = (): string => randomBytes(24).toString('hex');

/**
 * The secrets `pnpm start` generates when none is given: ADMIN_TOKEN only when neither ADMIN_TOKEN
 * nor ADMIN_TOKENS names an admin token (one more, unasked-for `admin` token would be a way in
 * nobody chose), and SERVICE_JWT_SECRET when unset.
 */
export function generatedSecrets(environment: NodeJS.ProcessEnv): { ADMIN_TOKEN?: string; SERVICE_JWT_SECRET?: string } {
  const named = (environment.ADMIN_TOKENS ?? '').trim() !== '';
  return {
    ...(environment.ADMIN_TOKEN || named ? {} : { ADMIN_TOKEN: secret() }),
    ...(environment.SERVICE_JWT_SECRET ? {} : { SERVICE_JWT_SECRET: `${secret()}${secret()}` }),
  };
}

/** Seams for tests, beside the environment: a webhook test network and the CA its receiver's certificate needs. */
export type PlatformSeams = Pick<UserSeams, 'webhookCa' | 'webhookNetwork'>;

export async function startPlatform(environment: NodeJS.ProcessEnv, seams: PlatformSeams = {}): Promise<Platform> {
  const dataDir = path.resolve(environment.DATA_DIR ?? '.data');
  const generated = generatedSecrets(environment);
  const env: NodeJS.ProcessEnv = {
    ...environment,
    ...generated,
    OUTBOX_DIR: environment.OUTBOX_DIR || path.join(dataDir, 'outbox'),
  };
  const level = env.LOG_LEVEL ?? 'info';
  const logger = (service: string) => createLogger({ service, level });
  // Validate every service's configuration before opening anything.
  const configs = {
    user: loadUserConfig(env, { requireInfrastructure: false }),
    categorization: loadCategorizationConfig(env, { requireInfrastructure: false }),
    notifier: loadNotifierConfig(env, { requireInfrastructure: false }),
    auth: loadAuthConfig(env, { requireInfrastructure: false }),
  };

  // One set of adapters for the four services: real where a URL is set, embedded otherwise.
  const infrastructure = await openInfrastructure(
    { ...configs.notifier, ...configs.user },
    {
      name: 'platform',
      logger: logger('platform'),
      needs: ['pool', 'usagePool', 'directPool', 'redis', 'bus', 'mailer'],
      exchange: configs.user.balanceExchange,
      usagePoolMax: configs.user.usageBatchLanes,
      embedded: { postgres: () => startEmbeddedPostgres(path.join(dataDir, 'pg')) },
    },
  );
  const services: RunningService[] = [];
  const stop = async (): Promise<void> => {
    for (const service of [...services].reverse()) await service.stop();
    await infrastructure.close();
  };
  // The account page calls the auth service from the browser. Unless a URL is given, it is the
  // auth service started here, whose port (0 = any) is known only once it listens.
  const started: { authUrl?: string } = {};
  const pageAuthUrl =
    env.ACCOUNT_PAGE_AUTH_URL || env.AUTH_URL ? {} : { accountPageAuthUrl: () => started.authUrl ?? configs.user.accountPageAuthUrl };

  try {
    // The user service first: it owns the schema the others read.
    services.push(await startUserService({ config: configs.user, logger: logger('user'), infrastructure, ...pageAuthUrl, ...seams }));
    services.push(await startCategorizationService({ config: configs.categorization, logger: logger('categorization'), infrastructure }));
    const notifierConfig = { ...configs.notifier, ...accountPageLinks(env, (services[0] as RunningService).url) };
    services.push(await startNotifierService({ config: notifierConfig, logger: logger('notifier'), infrastructure, ...seams }));
    services.push(await startAuthService({ config: configs.auth, logger: logger('auth'), infrastructure }));
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const [user, categorization, notifier, auth] = services as [RunningService, RunningService, RunningService, RunningService];
  started.authUrl = auth.url.replace('//0.0.0.0:', '//127.0.0.1:');
  return {
    services,
    urls: { auth: auth.url, user: user.url, categorization: categorization.url, notifier: notifier.url },
    adminToken: env.ADMIN_TOKEN || undefined,
    adminTokenGenerated: generated.ADMIN_TOKEN !== undefined,
    generatedServiceJwtSecret: generated.SERVICE_JWT_SECRET,
    embedded: infrastructure.embedded,
    dataDir,
    stop,
  };
}

/**
 * The variables the README's walk-through and `pnpm admin` need, as `NAME=value` pairs: the
 * services' addresses, and the admin token and service-JWT secret only when generated here (a
 * given secret is already in the caller's environment and is never printed).
 */
export function walkThroughExports(platform: Platform): string[] {
  return [
    `AUTH_URL=${loopback(platform.urls.auth)}`,
    `USER_URL=${loopback(platform.urls.user)}`,
    `CATEGORIZATION_URL=${loopback(platform.urls.categorization)}`,
    ...(platform.adminTokenGenerated ? [`ADMIN_TOKEN=${platform.adminToken}`] : []),
    ...(platform.generatedServiceJwtSecret === undefined ? [] : [`SERVICE_JWT_SECRET=${platform.generatedServiceJwtSecret}`]),
  ];
}
