/** A token as the token endpoint grants it. */
export interface GrantedToken {
  accessToken: string;
  /** Lifetime in seconds. */
  expiresIn: number;
}

/** Tokens are renewed this long before they expire, so none expires in flight. */
export const RENEW_BEFORE_EXPIRY_MS = 60_000;

/**
 * Holds one access token and renews it before it expires. Callers that ask while a token is
 * being fetched share that one request.
 */
export class TokenCache {
  private current: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;
  /** Bumped by `clear()`, so a request started before it never fills the cache after it. */
  private epoch = 0;

  constructor(
    private readonly grant: () => Promise<GrantedToken>,
    private readonly now: () => number,
  ) {}

  /** The cached token, or a fresh one when there is none or it is about to expire. */
  get(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return Promise.resolve(this.current.token);
    this.pending ??= this.fetch();
    return this.pending;
  }

  /** Forgets `token` if it is still the cached one (a service refused it); a newer one stays. */
  discard(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  /** Forgets every token, including one being fetched (the key changed). */
  clear(): void {
    this.epoch += 1;
    this.current = undefined;
    this.pending = undefined;
  }

  private fetch(): Promise<string> {
    const epoch = this.epoch;
    const requestedAt = this.now();
    const request = this.grant()
      .then((granted) => {
        // Counted from the request, not the answer: the server's clock started no later.
        if (epoch === this.epoch)
          this.current = { token: granted.accessToken, renewAt: requestedAt + granted.expiresIn * 1000 - RENEW_BEFORE_EXPIRY_MS };
        return granted.accessToken;
      })
      .finally(() => {
        if (this.pending === request) this.pending = undefined;
      });
    return request;
  }
}
