import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may go (CONTRACT §6.1): `https` only, and only to public unicast addresses;
 * loopback, private, link-local, multicast and every other special range are refused, for a
 * literal address and for every address a name resolves to. `allowInsecure`
 * (WEBHOOK_ALLOW_INSECURE, development and tests only) lifts both rules.
 */
export interface TargetPolicy {
  allowInsecure: boolean;
}

/** True for an address a webhook must never reach (anything but public unicast). */
export function isRefusedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  // ::ffff:127.0.0.1 is 127.0.0.1.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() !== 'unicast';
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

type LookupAll = (host: string) => Promise<string[]>;

const resolveAll: LookupAll = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });

/**
 * Checks a URL before it is saved: its form, and every address its host is or resolves to.
 * False for anything refused, an unresolvable name included. The sender checks again at
 * connection time (DNS may change in between).
 */
export async function isAllowedTarget(value: string, policy: TargetPolicy, lookupAll: LookupAll = resolveAll): Promise<boolean> {
  const url = parseTargetUrl(value, policy);
  if (!url) return false;
  if (policy.allowInsecure) return true;
  const host = hostOf(url);
  if (isIP(host) !== 0) return !isRefusedAddress(host);
  try {
    const addresses = await lookupAll(host);
    return addresses.length > 0 && addresses.every((address) => !isRefusedAddress(address));
  } catch {
    return false;
  }
}
