/**
 * Black-box harness of the wire-contract suite (`contract.int.test.ts`): the four services
 * in-process on one private database, a plain HTTP client, and oracles written from
 * `../shared/CONTRACT.md` alone (XML rendering, product catalogue and pools, category order,
 * the IAB TSV, service JWTs) so that what the suite expects never comes from the code under test.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Pool } from 'pg';
import type { RunningService } from '@platform/common';
import { closeRedis, connectRedis, createRedisAccessStore, type AccessWriter } from '@platform/credentials';
import { createPool } from '@platform/db';
import { createInProcessEventBus } from '@platform/events';
import {
  anAccount,
  createPrivateDatabase,
  deleteTopology,
  silentLogger,
  startSmtpCapture,
  freePort,
  startTcpProxy,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type SmtpCapture,
  type TcpProxy,
  type TestAccount,
  deleteKeys,
} from '@platform/testing';
import { loadConfig as loadAuthConfig, startAuthService } from '../services/auth/src';
import { DEFAULT_TAXONOMY_FILE, loadConfig as loadCategorizationConfig, startCategorizationService } from '../services/categorization/src';
import { loadConfig as loadNotifierConfig, startNotifierService } from '../services/notifier/src';
import { loadConfig as loadUserConfig, startUserService } from '../services/user/src';

export const ADMIN_TOKEN = `contract-admin-${uniqueId()}`;
export const SERVICE_JWT_SECRET = 'contract-suite-service-jwt-secret-0123456789';
export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const ACCESS_RESTRICTED = 'Access restricted. Check credits balance or enter the correct API key.';
export const API_KEY_PATTERN = /^at_[A-Za-z0-9]{29}$/;
/** The limit of the auth instances that test the failure and issuance limits. */
export const LOW_LIMIT = 3;

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

/** Query or form parameters; an array is a repeated parameter. A string is sent as it is. */
export type Fields = Record<string, string | readonly string[]> | string;

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'DELETE' | 'OPTIONS';
  query?: Fields;
  /** A JSON body (`application/json`), serialized with JSON.stringify. */
  json?: unknown;
  /** A form body (`application/x-www-form-urlencoded`). */
  form?: Fields;
  /** A body sent byte for byte. */
  raw?: { text: string; type: string };
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  text: string;
  headers: Headers;
  /** Content-Type, or null. */
  type: string | null;
  header(name: string): string | null;
  json(): unknown;
}

function encodeFields(fields: Fields): string {
  if (typeof fields === 'string') return fields;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') search.append(name, value);
    else for (const item of value) search.append(name, item);
  }
  return search.toString();
}

/** One HTTP exchange with nothing added: no default headers beyond what fetch itself sends. */
export async function call(base: string, path: string, request: HttpRequest = {}): Promise<Reply> {
  const query = request.query === undefined ? '' : encodeFields(request.query);
  const url = `${base}${path}${query === '' ? '' : `?${query}`}`;
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['Content-Type'] ??= 'application/json';
  } else if (request.form !== undefined) {
    body = encodeFields(request.form);
    headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
  } else if (request.raw !== undefined) {
    body = request.raw.text;
    headers['Content-Type'] ??= request.raw.type;
  }
  const method = request.method ?? (body === undefined ? 'GET' : 'POST');
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return {
    status: response.status,
    text,
    headers: response.headers,
    type: response.headers.get('content-type'),
    header: (name) => response.headers.get(name),
    json: () => JSON.parse(text) as unknown,
  };
}

export const bearer = (value: string): Record<string, string> => ({ Authorization: `Bearer ${value}` });
export const basic = (user: string, password: string): Record<string, string> => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** The seed's credential: `Bearer base64(apiKey)` in one of the accepted spellings. */
export type KeyEncoding = 'base64' | 'base64 unpadded' | 'base64url' | 'base64url unpadded' | 'raw';
export function seedBearer(apiKey: string, encoding: KeyEncoding = 'base64'): Record<string, string> {
  const standard = Buffer.from(apiKey).toString('base64');
  const urlSafe = standard.replace(/\+/g, '-').replace(/\//g, '_');
  const spelled: Record<KeyEncoding, string> = {
    base64: standard,
    'base64 unpadded': standard.replace(/=+$/, ''),
    base64url: urlSafe,
    'base64url unpadded': urlSafe.replace(/=+$/, ''),
    raw: apiKey,
  };
  return bearer(spelled[encoding]);
}

// ---------------------------------------------------------------------------------------------
// Oracles
// ---------------------------------------------------------------------------------------------

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function element(name: string, value: unknown): string {
  const inner = xmlContent(value);
  return inner === '' ? `<${name}/>` : `<${name}>${inner}</${name}>`;
}

function xmlContent(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((entry) => element('item', entry)).join('');
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .map(([key, member]) => element(key, member))
      .join('');
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`no XML form for ${typeof value}`);
}

/** CONTRACT §2: the XML document of a JSON value (declaration, `<xml>` root, `<item>`, empty elements, escaping). */
export function xmlOf(value: unknown, root = 'xml'): string {
  return `${XML_DECLARATION}${element(root, value)}`;
}

export type Format = 'JSON' | 'XML';

/** Status, Content-Type and the exact bytes of the body, compared together for a readable diff. */
export function expectBody(reply: Reply, status: number, body: unknown, format: Format = 'JSON'): void {
  expect({ status: reply.status, type: reply.type, text: reply.text }).toEqual({
    status,
    type: format === 'JSON' ? JSON_TYPE : XML_TYPE,
    text: format === 'JSON' ? JSON.stringify(body) : xmlOf(body),
  });
}

export const codeMessages = (code: number, messages: string | Record<string, string[]>): { code: number; messages: typeof messages } => ({
  code,
  messages,
});
export const unauthorized = codeMessages(401, ACCESS_RESTRICTED);
export const invalidField = (field: string, words: string): ReturnType<typeof codeMessages> =>
  codeMessages(422, { [field]: [`The selected ${words} is invalid.`] });
export const requiredField = (field: string, words: string): ReturnType<typeof codeMessages> =>
  codeMessages(422, { [field]: [`The ${words} field is required.`] });
export const badOutputFormat = invalidField('outputFormat', 'output format');

/** CONTRACT §5: the product catalogue. */
export const PRODUCTS: Readonly<Record<number, string>> = {
  1: 'WHOIS API',
  7: 'Email Verification API',
  8: 'IP Geolocation API',
  12: 'IP Geolocation API on IPIFY',
  13: 'IP Netblocks WHOIS Database',
  14: 'Domain Research Suite',
  19: 'IP Geolocation Data Feed',
  20: 'Domain Reputation API',
  21: 'Website Categorization API',
  22: 'DNS Database Download',
  23: 'IP Netblocks API',
  24: 'Bulk WHOIS API',
  25: 'Domain Availability API',
  26: 'DNS Lookup API',
  27: 'Screenshot API',
  28: 'Website Contacts & Categorization Database',
  29: 'Website Contacts API',
  34: 'Newly Registered Domains',
  35: 'Daily Website Contacts & Categorization',
  37: 'Disposable Email Domains',
  38: 'All Registered Domains',
  39: 'Real-time Domain Registration Streaming',
  40: 'Threat Intelligence Data Feeds',
  41: 'Typosquatting Data Feed',
  47: 'Subdomains Data Feed',
  50: 'Newly Created Websites Data Feed',
  55: 'Newly Registered Domains 2.0',
  57: 'MAC Address API',
  60: 'SSL Certificates Database',
  61: 'SSL Certificates API',
  63: 'Newly Registered Country Domains',
  101: 'Brand Alert API',
  102: 'Registrant Alert API',
  103: 'Reverse WHOIS API',
  104: 'WHOIS History API',
  105: 'Reverse IP API',
  106: 'Reverse MX API',
  107: 'Reverse NS API',
  108: 'Subdomains Lookup API',
  109: 'Domains & Subdomains Discovery API',
};

const SHARED_POOLS: readonly (readonly number[])[] = [
  [1, 24],
  [14, 27, 101, 102, 103, 104, 105, 106, 107, 108, 109],
];

/** CONTRACT §5: the products that share the pool of `productId`. */
export function poolOf(productId: number): readonly number[] {
  return SHARED_POOLS.find((pool) => pool.includes(productId)) ?? [productId];
}

export interface BalanceItem {
  product_id: number;
  product: { id: number; name: string };
  credits: number;
}

export function balanceItem(productId: number, credits: number): BalanceItem {
  return { product_id: productId, product: { id: productId, name: PRODUCTS[productId] ?? '?' }, credits };
}

/** CONTRACT §4.3: one item per product of every pool held (pool named by any member), ordered by id. */
export function balanceItems(credits: Record<number, number>): BalanceItem[] {
  const byProduct = new Map<number, number>();
  for (const [named, amount] of Object.entries(credits)) for (const member of poolOf(Number(named))) byProduct.set(member, amount);
  return [...byProduct.entries()].sort(([a], [b]) => a - b).map(([productId, amount]) => balanceItem(productId, amount));
}

export interface Category {
  id: string;
  name: string;
  parent: string | null;
}

/** CONTRACT §4.5: the 698 topical rows of the IAB TSV, read without the service's parser. */
export function iabRowsOfTsv(): Category[] {
  const rows: Category[] = [];
  for (const line of readFileSync(DEFAULT_TAXONOMY_FILE, 'utf8').split(/\r?\n/)) {
    const [id = '', parent = '', name = ''] = line.split('\t');
    if (/^[0-9]+$/.test(id) && Number(id) >= 1 && Number(id) <= 698)
      rows.push({ id: `IAB-${id}`, name, parent: parent === '' ? null : `IAB-${parent}` });
  }
  return rows;
}

const idNumber = (id: string): number => Number(id.slice(id.indexOf('-') + 1));
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
/** `order=IAB`: by the integer part, `IAB-` before `CUS-` on equal integers. */
export const iabOrder = (a: Category, b: Category): number =>
  idNumber(a.id) - idNumber(b.id) || Number(a.id.startsWith('CUS-')) - Number(b.id.startsWith('CUS-'));
/** `order=ABC`: by name with the contract's collator, ties in IAB order. */
export const abcOrder = (a: Category, b: Category): number => collator.compare(a.name, b.name) || iabOrder(a, b);

function base64url(input: string | Buffer): string {
  return Buffer.from(input).toString('base64url');
}

export type JwtAlgorithm = 'HS256' | 'HS512' | 'none';

/** An HMAC-signed (or unsigned, `alg: none`) JWT, built by hand. */
export function signJwt(claims: Record<string, unknown>, options: { secret?: string; alg?: JwtAlgorithm } = {}): string {
  const alg = options.alg ?? 'HS256';
  const unsigned = `${base64url(JSON.stringify({ alg, typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  if (alg === 'none') return `${unsigned}.`;
  const signature = createHmac(alg === 'HS256' ? 'sha256' : 'sha512', options.secret ?? SERVICE_JWT_SECRET)
    .update(unsigned)
    .digest();
  return `${unsigned}.${base64url(signature)}`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A service JWT as a product service sends it: `iss`, `aud`, `iat`, `exp` one minute ahead; claims can be overridden or removed (undefined). */
export function serviceJwt(overrides: Record<string, unknown> = {}, options: { secret?: string; alg?: JwtAlgorithm } = {}): string {
  const claims: Record<string, unknown> = { iss: 'contract-product', aud: 'user', iat: nowSeconds(), exp: nowSeconds() + 60, ...overrides };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return signJwt(claims, options);
}

/** The sample of a Prometheus metric whose labels include every one given, or undefined. */
export function metricSample(exposition: string, name: string, labels: Record<string, string>): string | undefined {
  return exposition
    .split('\n')
    .find((line) => line.startsWith(`${name}{`) && Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`)));
}

// ---------------------------------------------------------------------------------------------
// The platform under test
// ---------------------------------------------------------------------------------------------

export interface Platform {
  auth: string;
  user: string;
  categorization: string;
  /** A second categorization replica on the same database, polling for changes every 200 ms. */
  replicaCategorization: string;
  notifier: string;
  /** AUTH_FAILURES_PER_IP=3, TRUST_PROXY=false. */
  strictAuth: string;
  /** AUTH_FAILURES_PER_IP=3, TRUST_PROXY=loopback (the suite connects as the proxy). */
  proxiedAuth: string;
  /** TOKEN_RATE_PER_ACCOUNT=3. */
  meteredAuth: string;
  /** A user service that reaches Redis through `redisProxy` (cut it to simulate an outage). */
  fragileUser: string;
  /** An auth service that reaches Redis through `redisProxy`. */
  fragileAuth: string;
  redisProxy: TcpProxy;
  pool: Pool;
  /** An account inserted into the user tables (credits: product id -> its pool's credits), with its access records. */
  account(credits?: Record<number, number>): Promise<TestAccount>;
  /** A token minted through the seed flow of the main auth service. */
  token(apiKey: string, expiresIn?: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startPlatform(): Promise<Platform> {
  const started: RunningService[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  const prefix = `test:contract:${uniqueId()}:`;
  const logger = silentLogger();
  const stop = async (): Promise<void> => {
    for (const service of started.reverse()) await service.stop().catch(() => undefined);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };

  try {
    const db: PrivateDatabase = await createPrivateDatabase('contract');
    cleanups.push(() => db.drop());
    const redisProxy = await startTcpProxy(Number(new URL(testServers.redisUrl).port || 6379));
    cleanups.push(() => redisProxy.close());
    const bus = createInProcessEventBus();
    cleanups.push(() => bus.close());
    const base = {
      DATABASE_URL: db.url,
      REDIS_URL: testServers.redisUrl,
      REDIS_KEY_PREFIX: prefix,
      AMQP_URL: testServers.amqpUrl,
      ADMIN_TOKEN,
      SERVICE_JWT_SECRET,
      AUTH_PORT: '0',
      AUTH_URL: 'http://auth.contract.test',
      USER_PORT: '0',
      CATEGORIZATION_PORT: '0',
      AUTH_FAILURES_PER_IP: '100000',
      TOKEN_RATE_PER_ACCOUNT: '100000',
      IAB_TAXONOMY_FILE: DEFAULT_TAXONOMY_FILE,
      CATEGORY_REFRESH_INTERVAL_MS: '3600000',
    };
    const run = async (service: Promise<RunningService>): Promise<string> => {
      const running = await service;
      started.push(running);
      return running.url;
    };

    const user = await run(startUserService({ config: loadUserConfig(base), logger, provided: { bus } }));
    const fragileUser = await run(
      startUserService({ config: loadUserConfig({ ...base, REDIS_URL: redisProxy.url(testServers.redisUrl) }), logger, provided: { bus } }),
    );
    const categorization = await run(startCategorizationService({ config: loadCategorizationConfig(base), logger }));
    const replicaCategorization = await run(
      startCategorizationService({ config: loadCategorizationConfig({ ...base, CATEGORY_REFRESH_INTERVAL_MS: '200' }), logger }),
    );
    // The metadata names AUTH_URL, and the suite calls the endpoints it names: the port is chosen first.
    const authPort = String(await freePort());
    const auth = await run(
      startAuthService({ config: loadAuthConfig({ ...base, AUTH_PORT: authPort, AUTH_URL: `http://127.0.0.1:${authPort}` }), logger }),
    );
    const fragileAuth = await run(
      startAuthService({ config: loadAuthConfig({ ...base, REDIS_URL: redisProxy.url(testServers.redisUrl) }), logger }),
    );
    // Each limited service counts under a prefix of its own; the accounts of account() get their
    // access records under every prefix (the user service writes only the main one).
    const prefixes = [prefix];
    const limitedAuth = (overrides: Record<string, string>): Promise<string> => {
      const own = `${prefix}${uniqueId('limits')}:`;
      prefixes.push(own);
      return run(startAuthService({ config: loadAuthConfig({ ...base, REDIS_KEY_PREFIX: own, ...overrides }), logger }));
    };
    const strictAuth = await limitedAuth({ AUTH_FAILURES_PER_IP: String(LOW_LIMIT), TRUST_PROXY: 'false' });
    const proxiedAuth = await limitedAuth({ AUTH_FAILURES_PER_IP: String(LOW_LIMIT), TRUST_PROXY: 'loopback' });
    const meteredAuth = await limitedAuth({ TOKEN_RATE_PER_ACCOUNT: String(LOW_LIMIT) });

    const smtp: SmtpCapture = await startSmtpCapture();
    cleanups.push(() => smtp.close());
    const exchange = uniqueId('test.contract.');
    const queue = `${exchange}.balance-changed`;
    cleanups.push(() =>
      deleteTopology(testServers.amqpUrl, { queues: [queue, `${queue}.dead`], exchanges: [exchange, `${exchange}.dlx`] }),
    );
    const notifierService = await startNotifierService({
      config: loadNotifierConfig({
        DATABASE_URL: db.url,
        AMQP_URL: testServers.amqpUrl,
        SMTP_URL: smtp.url,
        NOTIFIER_PORT: '0',
        USER_URL: user,
        BALANCE_EXCHANGE: exchange,
        NOTIFIER_QUEUE: queue,
        NOTIFIER_DEAD_LETTER_QUEUE: `${queue}.dead`,
      }),
      logger,
    });
    started.push(notifierService);
    await notifierService.consuming;

    const pool = createPool({ connectionString: db.url, max: 4, logger });
    const accessRedis = await connectRedis(testServers.redisUrl, logger);
    cleanups.push(() => closeRedis(accessRedis));
    const stores = prefixes.map((keyPrefix) => createRedisAccessStore(accessRedis, { keyPrefix }));
    const everyPrefix: AccessWriter = {
      putKeys: async (records) => void (await Promise.all(stores.map((store) => store.putKeys(records)))),
      deleteKeys: async (keyHashes) => void (await Promise.all(stores.map((store) => store.deleteKeys(keyHashes)))),
      setPoolCredit: async (keyHashes, poolId, credited) =>
        void (await Promise.all(stores.map((store) => store.setPoolCredit(keyHashes, poolId, credited)))),
    };
    cleanups.push(async () => {
      await pool.end();
      // Only this suite's own keys (its unique prefix), never anyone else's.
      const redis = await connectRedis(testServers.redisUrl, logger);
      try {
        await deleteKeys(redis, prefix);
      } finally {
        await closeRedis(redis);
      }
    });

    return {
      auth,
      user,
      categorization,
      replicaCategorization,
      notifier: notifierService.url,
      strictAuth,
      proxiedAuth,
      meteredAuth,
      fragileUser,
      fragileAuth,
      redisProxy,
      pool,
      account: (credits = {}) => anAccount(pool, { credits, access: everyPrefix }),
      async token(apiKey, expiresIn = 3600) {
        const reply = await call(auth, '/oauth/token', { headers: seedBearer(apiKey), json: { grantType: 'access_token', expiresIn } });
        if (reply.status !== 200) throw new Error(`token endpoint answered ${reply.status}: ${reply.text}`);
        return (reply.json() as { accessToken: string }).accessToken;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
