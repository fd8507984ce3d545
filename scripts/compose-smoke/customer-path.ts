/**
 * A customer's path through the compose stack's published ports, as the README's curl examples
 * walk it: an account from the admin API, a token, the balance in JSON and XML, the category
 * list, usage debits down past the low-balance threshold, the alert e-mail in the mail catcher,
 * and a key rotation that refuses the old token. Each step throws with what it got.
 */
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { signServiceJwt } from '@platform/credentials';

/** Where the stack publishes each part, and the secrets the stack was started with. */
export interface Stack {
  authUrl: string;
  userUrl: string;
  categorizationUrl: string;
  /** The mail catcher's HTTP API (MailDev: GET /email). */
  mailUrl: string;
  adminToken: string;
  serviceJwtSecret: string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** IAB Content Taxonomy 2.2's topical rows (CONTRACT §4.5). */
const IAB_CATEGORIES = 698;
/** The default low-balance threshold (CONTRACT §6) and the credits the account starts with. */
const LOW_THRESHOLD = 10;
const START_CREDITS = LOW_THRESHOLD + 2;
const MAIL_WAIT_MS = 30_000;

/** One HTTP exchange; the body decoded from whatever Content-Encoding came back. */
function exchange(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, timeout: 10_000 }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const raw = Buffer.concat(chunks);
        const coding = incoming.headers['content-encoding'] ?? 'identity';
        const decoded = coding === 'br' ? brotliDecompressSync(raw) : coding === 'gzip' ? gunzipSync(raw) : raw;
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: decoded.toString('utf8') });
      });
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${url}: no answer within 10 s`)));
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

const json = (body: unknown) => ({ 'Content-Type': 'application/json', body: JSON.stringify(body) });

function expectStatus(what: string, answer: Answer, status: number): void {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${answer.body.slice(0, 500)}`);
}

function parse<T>(what: string, answer: Answer): T {
  try {
    return JSON.parse(answer.body) as T;
  } catch {
    throw new Error(`${what}: not JSON: ${answer.body.slice(0, 500)}`);
  }
}

function step(name: string, detail: string): void {
  process.stdout.write(`  ok  ${name}: ${detail}\n`);
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const { body: text, ...type } = json(body);
  return exchange(url, { method: 'POST', headers: { ...headers, ...type }, body: text });
}

async function createAccount(stack: Stack): Promise<{ id: number; email: string; apiKey: string }> {
  const email = `smoke-${randomUUID()}@example.com`;
  const answer = await post(
    `${stack.userUrl}/admin/v1/accounts`,
    { Authorization: `Bearer ${stack.adminToken}` },
    {
      email,
      credits: { '1': START_CREDITS },
    },
  );
  expectStatus('create account', answer, 201);
  const account = parse<{ id: number; apiKey: string }>('create account', answer);
  step('account', `id ${account.id}, ${START_CREDITS} WHOIS API credits`);
  return { ...account, email };
}

async function mintToken(stack: Stack, apiKey: string): Promise<string> {
  const seed = Buffer.from(apiKey).toString('base64');
  const answer = await post(
    `${stack.authUrl}/oauth/token`,
    { Authorization: `Bearer ${seed}` },
    { grantType: 'access_token', expiresIn: 3600 },
  );
  expectStatus('token', answer, 200);
  const { accessToken } = parse<{ accessToken: string }>('token', answer);
  step('token', 'minted from the API key');
  return accessToken;
}

async function readBalance(stack: Stack, token: string): Promise<void> {
  const auth = { Authorization: `Bearer ${token}` };
  const asJson = await exchange(`${stack.userUrl}/user-service/account-balance`, { headers: auth });
  expectStatus('balance (JSON)', asJson, 200);
  const { data } = parse<{ data: Array<{ product_id: number; credits: number }> }>('balance', asJson);
  const lookup = data.find((item) => item.product_id === 1);
  if (lookup?.credits !== START_CREDITS) throw new Error(`balance (JSON): expected ${START_CREDITS} credits, got ${asJson.body}`);
  const asXml = await exchange(`${stack.userUrl}/user-service/account-balance?outputFormat=XML`, { headers: auth });
  expectStatus('balance (XML)', asXml, 200);
  const type = String(asXml.headers['content-type']);
  const expected = `<product_id>1</product_id><product><id>1</id><name>WHOIS API</name></product><credits>${START_CREDITS}</credits>`;
  if (!type.startsWith('application/xml') || !asXml.body.startsWith('<?xml') || !asXml.body.includes(expected))
    throw new Error(`balance (XML): unexpected ${type} ${asXml.body.slice(0, 500)}`);
  step('balance', `${START_CREDITS} credits in JSON and in XML`);
}

async function listCategories(stack: Stack): Promise<void> {
  const answer = await exchange(`${stack.categorizationUrl}/api/v2/categories`, { headers: { 'Accept-Encoding': 'br' } });
  expectStatus('categories', answer, 200);
  const categories = parse<Array<{ id: string }>>('categories', answer);
  const iab = categories.filter((category) => /^IAB-\d+$/.test(category.id)).length;
  if (iab !== IAB_CATEGORIES) throw new Error(`categories: expected ${IAB_CATEGORIES} IAB categories, got ${iab}`);
  const coding = String(answer.headers['content-encoding'] ?? 'identity');
  // Pre-compressed bodies (CONTRACT §4.5): asked for br, the list must come in br.
  if (coding !== 'br') throw new Error(`categories: asked for br, sent as ${coding}`);
  step('categories', `${iab} IAB categories in br`);
}

async function debitBelowThreshold(stack: Stack, token: string): Promise<void> {
  let credits = START_CREDITS;
  while (credits >= LOW_THRESHOLD) {
    const jwt = signServiceJwt({ secret: stack.serviceJwtSecret, audience: 'user', issuer: 'compose-smoke', ttlSeconds: 60 });
    const answer = await post(
      `${stack.userUrl}/internal/v1/usage`,
      { Authorization: `Bearer ${jwt}` },
      {
        credential: token,
        productId: 1,
        units: 1,
        requestId: `smoke-${randomUUID()}`,
      },
    );
    expectStatus('usage', answer, 200);
    const left = parse<{ credits: number }>('usage', answer).credits;
    if (left !== credits - 1) throw new Error(`usage: expected ${credits - 1} credits left, got ${answer.body}`);
    credits = left;
  }
  step('usage', `debited to ${credits} credits, below the threshold of ${LOW_THRESHOLD}`);
}

async function awaitLowBalanceMail(stack: Stack, email: string): Promise<void> {
  const deadline = Date.now() + MAIL_WAIT_MS;
  let seen = '';
  while (Date.now() < deadline) {
    const answer = await exchange(`${stack.mailUrl}/email`);
    expectStatus('mail catcher', answer, 200);
    const mails = parse<Array<{ subject: string; to: Array<{ address: string }> }>>('mail catcher', answer);
    const alert = mails.find((mail) => mail.to.some((to) => to.address === email) && mail.subject.startsWith('Low balance alert'));
    if (alert !== undefined) {
      step('alert', `"${alert.subject}" reached the mail catcher`);
      return;
    }
    seen = mails.map((mail) => mail.subject).join(' | ');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`alert: no low-balance e-mail to ${email} within ${MAIL_WAIT_MS / 1000} s (mail catcher holds: ${seen || 'nothing'})`);
}

async function rotateKey(stack: Stack, apiKey: string, oldToken: string): Promise<void> {
  const answer = await exchange(`${stack.userUrl}/user-service/api-key/generate?currentApiKey=${encodeURIComponent(apiKey)}`);
  expectStatus('rotate', answer, 200);
  const fresh = parse<{ apiKey: string }>('rotate', answer).apiKey;
  const withOldToken = await exchange(`${stack.userUrl}/user-service/account-balance`, {
    headers: { Authorization: `Bearer ${oldToken}` },
  });
  expectStatus('balance with the token minted before the rotation', withOldToken, 401);
  const withNewKey = await exchange(`${stack.userUrl}/user-service/account-balance?apiKey=${encodeURIComponent(fresh)}`);
  expectStatus('balance with the new key', withNewKey, 200);
  step('rotation', 'new key accepted, the old token refused with 401');
}

/** Walks the whole path; throws at the first step that does not answer as documented. */
export async function customerPath(stack: Stack): Promise<void> {
  const account = await createAccount(stack);
  const token = await mintToken(stack, account.apiKey);
  await readBalance(stack, token);
  await listCategories(stack);
  await debitBelowThreshold(stack, token);
  await awaitLowBalanceMail(stack, account.email);
  await rotateKey(stack, account.apiKey, token);
}
