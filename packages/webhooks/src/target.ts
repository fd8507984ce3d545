import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may go (CONTRACT §6.1): `https` only, and only to public unicast addresses;
 * loopback, private, link-local, multicast and every other special range are refused, for a
 * literal address and for every address a name resolves to. `allowInsecure`
 * (WEBHOOK_ALLOW_INSECURE, development only) lifts both rules.
 */
export interface TargetPolicy {
  allowInsecure: boolean;
  /** Tests only, handed over in code (a service's seams), never read from configuration. */
  network?: TestNetwork | undefined;
}

/**
 * A test's network, for delivery tests with the address rules on: how names resolve (instead of
 * the system's DNS), and the exact `address:port` endpoints (IPv6 as `[address]:port`) the rules
 * let through: the test's receiver on loopback, and nothing else on that address or port. Every
 * other address a name resolves to is checked as in production.
 */
export interface TestNetwork {
  resolve: LookupAll;
  exempt: readonly string[];
}

// IPv6 forms that carry an IPv4 address in their last 32 bits: IPv4-compatible (::/96),
// IPv4-mapped, IPv4-translated (RFC 6145) and the NAT64 well-known prefix (RFC 6052).
const LAST_32_BITS_IPV4 = ['::/96', '::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));
// 6to4 (RFC 3056): 2002:AABB:CCDD::/48 carries AA.BB.CC.DD in bits 16-47.
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');

/** The IPv4 address an IPv6 address embeds (compatible, mapped, translated, NAT64, 6to4), if any. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  if (LAST_32_BITS_IPV4.some((cidr) => address.match(cidr))) return new ipaddr.IPv4(bytes.slice(12, 16));
  if (address.match(SIX_TO_FOUR)) return new ipaddr.IPv4(bytes.slice(2, 6));
  return undefined;
}

/**
 * True for an address a webhook must never reach (anything but public unicast). An IPv6 form
 * that embeds an IPv4 address is judged by the embedded address (`[::127.0.0.1]` is loopback).
 */
export function isRefusedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  const judged = parsed.kind() === 'ipv6' ? (embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed) : parsed;
  return judged.range() !== 'unicast';
}

/** The URL as a webhook target, or undefined when its form is refused (scheme, credentials, length). */
export function parseTargetUrl(value: string, policy: TargetPolicy): URL | undefined {
  if (value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const schemes = policy.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol) || url.username !== '' || url.password !== '' || url.hostname === '') return undefined;
  return url;
}

/** The host as `lookup` and `isIP` take it (IPv6 literals lose their brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The port a connection to the URL goes to. */
export const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/** Names to addresses, every one of them. */
export type LookupAll = (host: string) => Promise<string[]>;

const systemResolve: LookupAll = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });

/** How the policy resolves names: the system's DNS, or a test's network. */
export const resolverOf = (policy: TargetPolicy): LookupAll => policy.network?.resolve ?? systemResolve;

/** True when a connection to `address`:`port` is refused under the policy (the address rules, less a test's exempt endpoints). */
export function isRefusedEndpoint(address: string, port: number, policy: TargetPolicy): boolean {
  if (policy.allowInsecure) return false;
  const endpoint = isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
  if (policy.network?.exempt.includes(endpoint)) return false;
  return isRefusedAddress(address);
}

/**
 * Checks a URL before it is saved: its form, and every address its host is or resolves to.
 * False for anything refused, an unresolvable name included. The sender checks again at
 * connection time (DNS may change in between).
 */
export async function isAllowedTarget(value: string, policy: TargetPolicy): Promise<boolean> {
  const url = parseTargetUrl(value, policy);
  if (!url) return false;
  if (policy.allowInsecure) return true;
  const host = hostOf(url);
  const port = portOf(url);
  if (isIP(host) !== 0) return !isRefusedEndpoint(host, port, policy);
  try {
    const addresses = await resolverOf(policy)(host);
    return addresses.length > 0 && addresses.every((address) => !isRefusedEndpoint(address, port, policy));
  } catch {
    return false;
  }
}
