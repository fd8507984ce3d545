/**
 * Oracles of the contract suite, written from `../shared/CONTRACT.md` alone (XML rendering, error
 * bodies, product catalogue and pools, category order, the IAB TSV, service JWTs, metric samples),
 * so that what the suite expects never comes from the code under test.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { uniqueId } from '@platform/testing';
import { DEFAULT_TAXONOMY_FILE } from '@platform/categorization';
import type { Reply } from './http';

export const ADMIN_TOKEN = `contract-admin-token-${uniqueId()}-0123456789`;
/** An `ADMIN_TOKENS` entry with the read-only role (CONTRACT §7, roles), named `support`. */
export const SUPPORT_TOKEN = `contract-support-token-${uniqueId()}-0123456789`;
/** An `ADMIN_TOKENS` entry with the admin role given explicitly, named `ops`. */
export const OPS_TOKEN = `contract-ops-token-${uniqueId()}-0123456789`;
export const SERVICE_JWT_SECRET = 'contract-suite-service-jwt-secret-0123456789';
export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const ACCESS_RESTRICTED = 'Access restricted. Check credits balance or enter the correct API key.';
export const API_KEY_PATTERN = /^at_[A-Za-z0-9]{29}$/;
/** The limit of the auth instances that test the failure and issuance limits. */
export const LOW_LIMIT = 3;

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
const PRODUCTS: Readonly<Record<number, string>> = {
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
function poolOf(productId: number): readonly number[] {
  return SHARED_POOLS.find((pool) => pool.includes(productId)) ?? [productId];
}

/** CONTRACT §7: `GET /admin/v1/products`, the catalogue by id with each product's pool. */
export function adminCatalogue(): Array<{ id: number; name: string; pool: number[] }> {
  return Object.entries(PRODUCTS)
    .map(([id, name]) => ({ id: Number(id), name, pool: [...poolOf(Number(id))] }))
    .sort((a, b) => a.id - b.id);
}

interface BalanceItem {
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

type JwtAlgorithm = 'HS256' | 'HS512' | 'none';

/** An HMAC-signed (or unsigned, `alg: none`) JWT, built by hand. */
function signJwt(claims: Record<string, unknown>, options: { secret?: string; alg?: JwtAlgorithm } = {}): string {
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
