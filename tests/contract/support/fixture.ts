/**
 * What every contract test file shares: `usePlatform(parts)` starts the platform the file needs
 * before its tests and stops it after them, and returns the helpers bound to it; the constants
 * below are the contract's fixed answers.
 */
import { randomInt } from 'node:crypto';
import { checkDeclaredAnswer } from './declared-answers';
import { call, bearer, methodOf, type HttpRequest, type Reply } from './http';
import { ADMIN_TOKEN, JSON_TYPE, codeMessages, serviceJwt, type Format } from './oracles';
import { startPlatform, type Platform, type PlatformParts } from './platform';

export type ServiceName = 'auth' | 'user' | 'categorization' | 'notifier';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A well-shaped API key that no account has. */
export const unknownKey = (): string => `at_${Array.from({ length: 29 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`;
export const GRANT = { grantType: 'access_token' };
export const KEY_GENERATION_422 = codeMessages(422, 'Input correct request parameters.');
export const KEY_NOT_ACTIVE = codeMessages(400, 'The API key you entered does not exist or is no longer active.');
export const TOO_LARGE = codeMessages(413, 'Request body too large.');
export const MALFORMED = codeMessages(400, 'Malformed request body.');
export const TOO_MANY = codeMessages(429, 'Too Many Requests. Try your call again later.');
export const UNAVAILABLE = codeMessages(503, 'Service temporarily unavailable. Try your call again later.');
export const NOT_FOUND = codeMessages(404, 'Not found.');
export const BODY_LIMIT = 16 * 1024;
export const FORMATS: Format[] = ['JSON', 'XML'];
export const DEFAULT_SETTINGS = { lowBalanceAlert: { enabled: true, threshold: 10 }, zeroBalanceAlert: { enabled: true } };
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export const withFormat = (format: Format): Record<string, string> => (format === 'XML' ? { outputFormat: 'XML' } : {});
/** A JSON body of exactly `bytes` bytes: the document followed by spaces (JSON whitespace). */
export const paddedJson = (document: unknown, bytes: number): string => JSON.stringify(document).padEnd(bytes, ' ');
export const oversizeJson = (): string => JSON.stringify({ padding: 'x'.repeat(BODY_LIMIT) });

/** The RFC 6749 §5.2 error body: `error` as given, nothing beyond the RFC's members. */
export function expectOAuthError(reply: Reply, status: number, error: string): void {
  expect({ status: reply.status, type: reply.type }).toEqual({ status, type: JSON_TYPE });
  const body = reply.json() as Record<string, unknown>;
  expect(body.error).toBe(error);
  expect(Object.keys(body).every((key) => ['error', 'error_description', 'error_uri'].includes(key))).toBe(true);
}

export function expectRetryAfter(reply: Reply): void {
  expect(reply.header('retry-after')).toMatch(/^[1-9][0-9]*$/);
}

/** The platform of one test file and the requests the contract's tests make of it. */
interface ContractFixture {
  /** The running platform (read it inside tests and hooks only: it starts in beforeAll). */
  platform: Platform;
  send(service: ServiceName, path: string, request?: HttpRequest): Promise<Reply>;
  freshKey(credits?: Record<number, number>): Promise<string>;
  balanceOf(apiKey: string, query?: Record<string, string>): Promise<Reply>;
  rotate(currentApiKey: string, query?: Record<string, string | readonly string[]>): Promise<Reply>;
  introspect(token: string, headers?: Record<string, string>): Promise<Reply>;
  revoke(token: string, headers: Record<string, string>): Promise<Reply>;
  /** The admin API of the categorization service (`/admin/v1/categories…`) or of the user service. */
  admin(method: 'GET' | 'POST' | 'DELETE', path: string, json?: unknown, token?: string): Promise<Reply>;
  usage(body: unknown, jwt?: string): Promise<Reply>;
  isActive(token: string): Promise<unknown>;
}

/** Starts the user and auth services plus `parts` before the file's tests, stops them after. */
export function usePlatform(parts: PlatformParts = {}): ContractFixture {
  let running: Platform | undefined;
  beforeAll(async () => {
    running = await startPlatform(parts);
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
  }, 60_000);

  const current = (): Platform => {
    if (running === undefined) throw new Error('the contract platform is not running: use it inside tests and hooks');
    return running;
  };
  const platform = new Proxy({} as Platform, { get: (_target, member) => Reflect.get(current(), member) as unknown });
  // Every answer is also checked against the route's declaration (declared-answers.ts).
  const send = async (service: ServiceName, path: string, request: HttpRequest = {}): Promise<Reply> => {
    const reply = await call(platform[service], path, request);
    checkDeclaredAnswer(service, methodOf(request), path, reply);
    return reply;
  };
  const introspect = (token: string, headers: Record<string, string> = bearer(ADMIN_TOKEN)): Promise<Reply> =>
    send('auth', '/oauth/introspect', { headers, form: { token } });
  return {
    platform,
    send,
    freshKey: async (credits = { 1: 50 }) => (await platform.account(credits)).apiKey,
    balanceOf: (apiKey, query = {}) => send('user', '/user-service/account-balance', { query: { apiKey, ...query } }),
    rotate: (currentApiKey, query = {}) => send('user', '/user-service/api-key/generate', { query: { currentApiKey, ...query } }),
    introspect,
    revoke: (token, headers) => send('auth', '/oauth/revoke', { headers, form: { token } }),
    admin: (method, path, json, token = ADMIN_TOKEN) =>
      send(path.startsWith('/admin/v1/categories') ? 'categorization' : 'user', path, {
        method,
        headers: bearer(token),
        ...(json === undefined ? {} : { json }),
      }),
    usage: (body, jwt = serviceJwt()) => send('user', '/internal/v1/usage', { headers: bearer(jwt), json: body }),
    isActive: async (token) => (await introspect(token)).json(),
  };
}
