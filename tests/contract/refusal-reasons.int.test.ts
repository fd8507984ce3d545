/**
 * CONTRACT §2, refusal reasons: every 401, 403 and 429 of every service and of a product says
 * why in `X-Refusal-Reason` (and in the Bearer challenge's `error_description`, and in the
 * service's log line for that request), while the body stays the contract's sentence.
 * Black-box, over HTTP: every expectation is written from the contract (oracles in `support/`), never read from the code.
 */
import { eventually, uniqueId, type TestAccount } from '@platform/testing';
import {
  ACCESS_RESTRICTED,
  ADMIN_TOKEN,
  FORMATS,
  LOW_LIMIT,
  TOO_MANY,
  bearer,
  call,
  codeMessages,
  expectBody,
  expectOAuthError,
  unauthorized,
  unknownKey,
  usePlatform,
  withFormat,
  type Format,
  type Reply,
} from './support';
import { startProduct, type RunningProduct } from './support/product';
import {
  adminCall,
  balance,
  categories,
  clientCredentials,
  lookup,
  seedToken,
  usage,
  usageWithJwt,
  type Exchange,
  type Target,
} from './support/refusal-exchanges';

const { platform, send, rotate } = usePlatform({ categorization: true, limitedAuth: true, logs: true });

/** The credentials in every state the table names, made once for the file. */
interface States {
  /** An account whose key was rotated, with that replaced key. */
  replaced: TestAccount;
  replacedKey: string;
  tokenOfReplacedKey: string;
  disabled: TestAccount;
  empty: TestAccount;
  live: TestAccount;
}

let states: States;
let product: RunningProduct;

beforeAll(async () => {
  product = await startProduct(platform.user);
  const replaced = await platform.account({ 1: 50 });
  const tokenOfReplacedKey = await platform.token(replaced.apiKey);
  expect((await rotate(replaced.apiKey)).status).toBe(200);
  const disabled = await platform.account({ 1: 50 });
  const patched = await send('user', `/admin/v1/accounts/${disabled.id}`, {
    method: 'PATCH',
    headers: bearer(ADMIN_TOKEN),
    json: { disabled: true },
  });
  expect(patched.status).toBe(200);
  states = {
    replaced,
    replacedKey: replaced.apiKey,
    tokenOfReplacedKey,
    disabled,
    empty: await platform.account({ 1: 0 }),
    live: await platform.account({ 1: 5 }),
  };
}, 60_000);

afterAll(async () => {
  await product?.stop();
});

const CASES: Array<[string, string, number, (s: States) => Exchange]> = [
  ['balance without a credential', 'missing_credential', 401, () => balance({})],
  ['the token endpoint without Authorization', 'missing_credential', 401, () => seedToken(undefined)],
  ['the usage API without a service JWT', 'missing_credential', 401, (s) => usageWithJwt(s.live.apiKey, null)],
  ['a product call without a credential', 'missing_credential', 401, () => lookup(undefined)],
  ['balance with an unknown key', 'invalid_credential', 401, () => ((key) => balance({ query: { apiKey: key } }, key))(unknownKey())],
  [
    'balance with a token of a replaced key, as Bearer',
    'invalid_credential',
    401,
    (s) => balance({ headers: bearer(s.tokenOfReplacedKey) }, s.tokenOfReplacedKey),
  ],
  ['the token endpoint with an unknown key', 'invalid_credential', 401, () => seedToken(unknownKey())],
  ['categories with an unknown key as Bearer', 'invalid_credential', 401, () => categories(unknownKey())],
  ['the usage API with a wrong service JWT', 'invalid_credential', 401, (s) => usageWithJwt(s.live.apiKey, 'not.a.jwt')],
  ['balance with a replaced key', 'key_replaced', 401, (s) => balance({ query: { apiKey: s.replacedKey } }, s.replacedKey)],
  ['the token endpoint with a replaced key', 'key_replaced', 401, (s) => seedToken(s.replacedKey)],
  ['client credentials with a replaced key', 'key_replaced', 401, (s) => clientCredentials(s.replaced, s.replacedKey)],
  ['categories with a replaced key as Bearer', 'key_replaced', 401, (s) => categories(s.replacedKey)],
  ['the usage API with a replaced key', 'key_replaced', 401, (s) => usage(s.replacedKey)],
  ['a product call with a replaced key', 'key_replaced', 401, (s) => lookup(s.replacedKey)],
  [
    'balance with a disabled account’s key',
    'account_disabled',
    401,
    (s) => balance({ query: { apiKey: s.disabled.apiKey } }, s.disabled.apiKey),
  ],
  ['the token endpoint with a disabled account’s key', 'account_disabled', 401, (s) => seedToken(s.disabled.apiKey)],
  ['categories with a disabled account’s key as Bearer', 'account_disabled', 401, (s) => categories(s.disabled.apiKey)],
  ['a product call with a disabled account’s key', 'account_disabled', 401, (s) => lookup(s.disabled.apiKey)],
  ['the token endpoint for an account whose pools are all 0', 'no_credits', 401, (s) => seedToken(s.empty.apiKey)],
  ['client credentials for an account whose pools are all 0', 'no_credits', 401, (s) => clientCredentials(s.empty, s.empty.apiKey)],
  ['the usage API asking more than the pool holds', 'pool_exhausted', 403, (s) => usage(s.live.apiKey, 6)],
  ['a product call on an empty pool', 'pool_exhausted', 403, (s) => lookup(s.empty.apiKey)],
  [
    'failed attempts over the address’s limit',
    'rate_limited',
    429,
    () => ({ ...seedToken(unknownKey(), 'strictAuth'), untilLimited: true }),
  ],
  ['issuances over the account’s limit', 'rate_limited', 429, (s) => ({ ...seedToken(s.live.apiKey, 'meteredAuth'), untilLimited: true })],
  ['the user admin API without a token', 'wrong_admin_token', 401, () => adminCall('user', '/admin/v1/accounts/1', undefined)],
  ['the user admin API with a wrong token', 'wrong_admin_token', 401, () => adminCall('user', '/admin/v1/accounts/1', `${ADMIN_TOKEN}x`)],
  [
    'the categorization admin API with a wrong token',
    'wrong_admin_token',
    401,
    () => adminCall('categorization', '/admin/v1/categories', 'wrong-admin-token-0123456789', { name: 'x', parent: null }),
  ],
];

function baseOf(target: Target): string {
  return target === 'product' ? product.url : platform[target];
}

/** The exchange in a format, with a request id of its own, sent once (or until its limit answers 429). */
async function exchange(ex: Exchange, format: Format, requestId: string): Promise<Reply> {
  const formatted = format === 'XML' ? { ...ex.request, query: { ...(ex.request.query as object), ...withFormat(format) } } : ex.request;
  const request = { ...formatted, headers: { ...formatted.headers, 'X-Request-Id': requestId } };
  const attempts = ex.untilLimited === true ? LOW_LIMIT + 2 : 1;
  let reply = await call(baseOf(ex.target), ex.path, request);
  for (let attempt = 1; attempt < attempts && reply.status !== 429; attempt += 1) reply = await call(baseOf(ex.target), ex.path, request);
  return reply;
}

/** The body is the contract's own, whatever the reason (real clients depend on it). */
function expectUnchangedBody(reply: Reply, ex: Exchange, status: number, format: Format): void {
  if (ex.envelope === 'oauth') return expectOAuthError(reply, status, 'invalid_client');
  if (ex.envelope === 'codeMessages')
    return expectBody(
      reply,
      status,
      ex.messages !== undefined
        ? codeMessages(status, ex.messages)
        : status === 429
          ? TOO_MANY
          : status === 403
            ? codeMessages(403, ACCESS_RESTRICTED)
            : unauthorized,
      format,
    );
  const msg = format === 'JSON' ? (reply.json() as { ErrorMessage: { msg: string } }).ErrorMessage.msg : reply.text;
  expect(msg).toContain(format === 'JSON' ? ACCESS_RESTRICTED : `<msg>${ACCESS_RESTRICTED}</msg>`);
}

function logLinesOf(target: Target): Array<Record<string, unknown>> {
  return target === 'product' ? product.logLines() : platform.logLines();
}

describe('§2 refusal reasons', () => {
  const rows = CASES.flatMap(([name, reason, status, make]) =>
    FORMATS.map((format) => [`${name} (${format})`, reason, status, make, format] as const),
  );

  it.each(rows)(
    'when %s, then X-Refusal-Reason is %s with status %d, in the challenge and the log line',
    async (_name, reason, status, make, format) => {
      const ex = make(states);
      // A JSON-only endpoint (admin, internal, RFC 6749) has no XML form to walk.
      const effective: Format = ex.xml ? format : 'JSON';
      const requestId = uniqueId('refusal');
      const reply = await exchange(ex, effective, requestId);

      expect({ status: reply.status, reason: reply.header('x-refusal-reason') }).toEqual({ status, reason });
      expectUnchangedBody(reply, ex, status, effective);
      const challenge =
        status === 401 && ex.realm !== undefined
          ? `Bearer realm="${ex.realm}", error="invalid_token", error_description="${reason}"`
          : null;
      expect(reply.header('www-authenticate')).toBe(ex.envelope === 'oauth' ? 'Basic realm="auth"' : challenge);

      const line = await eventually(
        () => logLinesOf(ex.target).find((entry) => entry.requestId === requestId && String(entry.status) === String(status)),
        5000,
        `the request line of ${requestId}`,
      );
      expect(line.reason).toBe(reason);
      if (ex.secret !== undefined) expect(JSON.stringify(line)).not.toContain(ex.secret);
    },
  );

  it('when a request is served, then neither the header nor the request line carries a reason', async () => {
    const requestId = uniqueId('served');
    const reply = await call(platform.user, '/user-service/account-balance', {
      query: { apiKey: states.live.apiKey },
      headers: { 'X-Request-Id': requestId },
    });
    expect({ status: reply.status, reason: reply.header('x-refusal-reason') }).toEqual({ status: 200, reason: null });
    const line = await eventually(() =>
      platform.logLines().find((entry) => entry.requestId === requestId && String(entry.status) === '200'),
    );
    expect(Object.hasOwn(line, 'reason')).toBe(false);
  });
});
