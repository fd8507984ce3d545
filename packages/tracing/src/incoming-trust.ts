import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * Whose `traceparent` a service continues (TRACE_TRUST_INCOMING): nobody's (the default), every
 * caller's (`true`: the service sits behind a gateway that starts the traces), or the listed
 * peers' (the proxies that start them). Anyone else gets a new root span: a client may not
 * choose its trace id, nor switch recording off with the flags `00`.
 */
export type TraceTrust = { readonly kind: 'none' } | { readonly kind: 'all' } | { readonly kind: 'peers'; readonly peers: BlockList };

/** The headers that carry a caller's trace context (W3C Trace Context and Baggage). */
const TRACE_HEADERS = ['traceparent', 'tracestate', 'baggage'] as const;

/** Reads TRACE_TRUST_INCOMING: unset, empty or `false`; `true`; or comma-separated addresses and CIDRs. */
export function parseTraceTrust(raw: string | undefined): TraceTrust {
  const value = (raw ?? '').trim();
  if (value === '' || value.toLowerCase() === 'false') return { kind: 'none' };
  if (value.toLowerCase() === 'true') return { kind: 'all' };
  const peers = new BlockList();
  for (const entry of value.split(',').map((part) => part.trim())) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= maxBits)) || prefix === '') {
      throw new Error(`TRACE_TRUST_INCOMING: "${entry}" is not true, false, an address or a CIDR`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) peers.addAddress(address, type);
    else peers.addSubnet(address, bits, type);
  }
  return { kind: 'peers', peers };
}

/** Whether the request's peer (the connection's address, never a header) may continue its trace. */
export function trustsTraceOf(request: Pick<IncomingMessage, 'socket'>, trust: TraceTrust): boolean {
  if (trust.kind !== 'peers') return trust.kind === 'all';
  const peer = request.socket.remoteAddress ?? '';
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer)?.[1];
  const address = mapped ?? peer;
  const family = isIP(address);
  return family !== 0 && trust.peers.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Removes the caller's trace context from an untrusted request, so that its server span is a new root. */
export function dropUntrustedTraceContext(request: Pick<IncomingMessage, 'socket' | 'headers'>, trust: TraceTrust): void {
  if (trustsTraceOf(request, trust)) return;
  for (const name of TRACE_HEADERS) delete request.headers[name];
}
