/** How a metering client authenticates: the shared secret (it signs its own JWTs) or a function that answers a JWT. */
export type ServiceJwtSource = { secret: string; issuer: string } | (() => string | Promise<string>);

/** Seconds a JWT the client signs lives (the usage API takes at most 5 minutes). */
const TTL_SECONDS = 60;

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const encodeJson = (value: unknown): string => base64url(new TextEncoder().encode(JSON.stringify(value)));

/**
 * A service JWT for the user service's internal usage API (CONTRACT §7: HS256, audience `user`,
 * `iss` the calling service, `exp` at most 5 minutes ahead), one per request: each carries a
 * fresh `jti`, and the usage API refuses a JWT whose `jti` it has seen (a replay). Signed with WebCrypto so that the
 * package needs no JWT library, in Node and in browsers-free workers alike.
 */
export function serviceJwtSigner(source: ServiceJwtSource, now: () => number = Date.now): () => Promise<string> {
  if (typeof source === 'function') return async () => source();
  let key: ReturnType<typeof crypto.subtle.importKey> | undefined;
  return async () => {
    key ??= crypto.subtle.importKey('raw', new TextEncoder().encode(source.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const iat = Math.floor(now() / 1000);
    const unsigned = `${encodeJson({ alg: 'HS256', typ: 'JWT' })}.${encodeJson({ iss: source.issuer, aud: 'user', iat, exp: iat + TTL_SECONDS, jti: crypto.randomUUID() })}`;
    const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(unsigned)));
    return `${unsigned}.${base64url(signature)}`;
  };
}
