import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { hostOf, isRefusedEndpoint, parseTargetUrl, portOf, resolverOf, type TargetPolicy } from './target';
import { signedHeaders } from './sign';

/** A delivery is answered within this or fails (CONTRACT §6.1). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** The most of a response body read; the rest is not waited for. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookRequest {
  url: string;
  secret: string;
  /** The event id: `webhook-id`, the same for every retry of one event. */
  id: string;
  timestamp: Date;
  /** The JSON body, sent and signed as these exact bytes. */
  body: string;
}

export interface SendOptions extends TargetPolicy {
  /** Extra trusted CA certificates (PEM), for tests' self-signed receivers; undefined: the system's. */
  ca?: string | undefined;
  timeoutMs?: number;
}

/** What one attempt came to: `delivered` only for a 2xx. */
export interface WebhookOutcome {
  delivered: boolean;
  /** The receiver's status code, when it answered. */
  status: number | undefined;
  /**
   * Why it failed without a status, coarse (issue 45: no errno or TLS code, so that a test send is
   * no port scanner): `address not allowed`, `timeout`, `tls failed` or `connection failed`.
   */
  error: string | undefined;
}

class RefusedAddressError extends Error {
  constructor() {
    super('address not allowed');
  }
}

/**
 * DNS as the connection does it, refusing a name that resolves to a forbidden address: the check
 * is made on the very addresses the socket connects to, every one of them, so a name cannot pass
 * the save-time check and then point inside.
 */
function guardedLookup(policy: TargetPolicy, port: number): LookupFunction {
  const resolve = resolverOf(policy);
  return (hostname, options: LookupOptions, callback) => {
    resolve(hostname).then(
      (found) => {
        const addresses: LookupAddress[] = found.map((address) => ({ address, family: isIP(address) }));
        const refused = addresses.some((entry) => isRefusedEndpoint(entry.address, port, policy));
        // Every address is checked; then only those of the family the socket asks for, if it asks.
        const usable =
          options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
        if (refused || usable.length === 0) return callback(new RefusedAddressError(), '', 0);
        if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        const first = usable[0] as LookupAddress;
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** Why an attempt got no answer, as the customer (and the attempts list) sees it. */
export type WebhookFailure = 'address not allowed' | 'timeout' | 'tls failed' | 'connection failed';

// Node's TLS and certificate failures: ERR_TLS_*, ERR_SSL_*, EPROTO, and OpenSSL's verify codes.
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SIGNATURE|ISSUER|UNABLE_TO_VERIFY/;

/** The coarse outcome of a failed attempt; the exact code stays out of answers and lists. */
function describe(error: unknown, signal: AbortSignal): WebhookFailure {
  if (error instanceof RefusedAddressError) return 'address not allowed';
  if (signal.aborted) return 'timeout';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && TLS_CODE.test(code) ? 'tls failed' : 'connection failed';
}

/**
 * Sends one signed delivery (Standard Webhooks): a POST that follows no redirect (a 3xx is an
 * answer, not a 2xx), gives up after the timeout, and reads at most MAX_RESPONSE_BYTES.
 */
export async function sendWebhook(request: WebhookRequest, options: SendOptions): Promise<WebhookOutcome> {
  const url = parseTargetUrl(request.url, options);
  if (!url) return { delivered: false, status: undefined, error: 'address not allowed' };
  const literal = hostOf(url);
  const port = portOf(url);
  if (isIP(literal) !== 0 && isRefusedEndpoint(literal, port, options)) {
    return { delivered: false, status: undefined, error: 'address not allowed' };
  }
  const signal = AbortSignal.timeout(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'account-access-webhooks/1',
    ...signedHeaders(request.secret, request.id, request.timestamp, request.body),
  };
  const transport = url.protocol === 'https:' ? https : http;
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = transport.request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(request.body) },
          lookup: guardedLookup(options, port),
          signal,
          agent: false,
          ...(options.ca === undefined ? {} : { ca: options.ca }),
        },
        (response) => {
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) response.destroy();
          });
          const done = () => resolve(response.statusCode ?? 0);
          response.on('end', done);
          response.on('close', done);
          response.on('error', done);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
    return { delivered: status >= 200 && status < 300, status, error: undefined };
  } catch (error) {
    return { delivered: false, status: undefined, error: describe(error, signal) };
  }
}
