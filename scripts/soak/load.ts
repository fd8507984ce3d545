import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import { errorMessage } from '@platform/runtime';

export interface Targets {
  auth: string;
  user: string;
  categorization: string;
  adminToken: string;
  serviceJwtSecret: string;
}

/** What the load saw: requests per operation, and any answer that operation must never give. */
export interface LoadReport {
  sent: Record<string, number>;
  unexpected: Array<{ operation: string; status: number | string }>;
  /** Requests not sent because too many were still in flight (the platform fell behind the rate). */
  skipped: number;
}

interface Account {
  id: number;
  apiKey: string;
  token: string;
}

const bearerKey = (apiKey: string): string => `Bearer ${Buffer.from(apiKey).toString('base64')}`;

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: Record<string, unknown> = {};
  if (text.startsWith('{')) body = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, body };
}

/**
 * Mixed load at a fixed rate (open loop, so that a slower machine shows as skipped requests,
 * not as a different load): token issuance, balance reads with tokens, the category list,
 * debits through the usage API (one at a time, in batches of 5, and as reservations settled in part
 * or released), and every second a key rotation followed by a fresh token.
 */
export class MixedLoad {
  private readonly report: LoadReport = { sent: {}, unexpected: [], skipped: 0 };
  private readonly accounts: Account[] = [];
  private rotating: Account | undefined;
  private inFlight = 0;
  private jwt = '';

  constructor(private readonly targets: Targets) {}

  async prepare(accountCount: number): Promise<void> {
    for (let index = 0; index < accountCount + 1; index += 1) {
      const created = await call(`${this.targets.user}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.targets.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `soak-${randomUUID()}@example.test`, credits: { 1: 1_000_000_000 } }),
      });
      if (created.status !== 201) throw new Error(`account creation answered ${created.status}`);
      const apiKey = String(created.body.apiKey);
      const account = { id: Number(created.body.id), apiKey, token: await this.mint(apiKey) };
      if (index === 0) this.rotating = account;
      else this.accounts.push(account);
    }
    this.refreshJwt();
  }

  /**
   * Runs `rate` requests a second until `until` (epoch ms), at most `maxInFlight` at once. Every
   * `checkpoint.everyMs` it stops sending, lets what is in flight finish, and calls
   * `checkpoint.at()`, so that readings are taken on a quiet process; the pause is not owed.
   */
  async run(rate: number, until: number, checkpoint: { everyMs: number; at(): Promise<void> }, maxInFlight = 16): Promise<LoadReport> {
    const jwtTimer = setInterval(() => this.refreshJwt(), 60_000);
    let rotating = false;
    // One rotation at a time: two with the same current key would rightly answer one of them 400.
    const rotation = setInterval(() => {
      if (rotating) return;
      rotating = true;
      void this.operation('rotate', () => this.rotate()).finally(() => (rotating = false));
    }, 1000);
    let clock = Date.now();
    let nextCheckpoint = clock + checkpoint.everyMs;
    let due = 0;
    try {
      while (Date.now() < until) {
        if (Date.now() >= nextCheckpoint) {
          const paused = Date.now();
          await this.drained();
          await checkpoint.at();
          clock += Date.now() - paused;
          nextCheckpoint += checkpoint.everyMs + (Date.now() - paused);
        }
        // Owed by the clock, not by ticks: a late timer sends more at once instead of fewer in all.
        const owed = Math.floor(((Date.now() - clock) * rate) / 1000);
        for (; due < owed; due += 1) {
          if (this.inFlight >= maxInFlight) this.report.skipped += 1;
          else void this.operation(...this.pick());
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await this.drained();
    } finally {
      clearInterval(jwtTimer);
      clearInterval(rotation);
    }
    await this.drained();
    return this.report;
  }

  private async drained(): Promise<void> {
    while (this.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private pick(): [string, () => Promise<number>] {
    const account = this.accounts[Math.floor(Math.random() * this.accounts.length)] as Account;
    const roll = Math.random();
    if (roll < 0.25) return ['issue', async () => (await this.issue(account.apiKey)).status];
    if (roll < 0.55) return ['balance', () => this.balance(account)];
    if (roll < 0.7) return ['categories', () => this.categories()];
    if (roll < 0.85) return ['debit', () => this.debit(account)];
    if (roll < 0.93) return ['batch', () => this.batch(account)];
    return ['reservation', () => this.reservation(account)];
  }

  private async operation(name: string, work: () => Promise<number>): Promise<void> {
    this.inFlight += 1;
    this.report.sent[name] = (this.report.sent[name] ?? 0) + 1;
    try {
      const status = await work();
      if (status !== 200 && status !== 304) this.report.unexpected.push({ operation: name, status });
    } catch (error) {
      this.report.unexpected.push({ operation: name, status: errorMessage(error) });
    } finally {
      this.inFlight -= 1;
    }
  }

  private issue(apiKey: string) {
    return call(`${this.targets.auth}/oauth/token`, {
      method: 'POST',
      headers: { authorization: bearerKey(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'access_token', expiresIn: 3600 }),
    });
  }

  private async mint(apiKey: string): Promise<string> {
    const issued = await this.issue(apiKey);
    if (issued.status !== 200) throw new Error(`token issuance answered ${issued.status}`);
    return String(issued.body.accessToken);
  }

  private async balance(account: Account): Promise<number> {
    const response = await fetch(`${this.targets.user}/user-service/account-balance`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    await response.arrayBuffer();
    return response.status;
  }

  private async categories(): Promise<number> {
    const order = Math.random() < 0.5 ? 'IAB' : 'ABC';
    const response = await fetch(`${this.targets.categorization}/api/v2/categories?order=${order}`);
    await response.arrayBuffer();
    return response.status;
  }

  private async debit(account: Account): Promise<number> {
    const answer = await call(`${this.targets.user}/internal/v1/usage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ credential: account.token, productId: 1, units: 1, requestId: randomUUID() }),
    });
    return answer.status;
  }

  /** A batch of 5 debits (CONTRACT §7.1): 200 when every item is. */
  private async batch(account: Account): Promise<number> {
    const item = () => ({ credential: account.token, productId: 1, units: 1, requestId: randomUUID() });
    const answer = await this.internal('/batch', { items: Array.from({ length: 5 }, item) });
    const statuses = (answer.body.items as Array<{ status: number }> | undefined)?.map((result) => result.status) ?? [];
    return answer.status === 200 && statuses.length === 5 && statuses.every((status) => status === 200) ? 200 : answer.status;
  }

  /** Reserves 3 units, then settles 0–3 of them or releases them all: 200 when both ends answer as they must. */
  private async reservation(account: Account): Promise<number> {
    const held = await this.internal('/reservations', { credential: account.token, productId: 1, units: 3, requestId: randomUUID() });
    if (held.status !== 201) return held.status;
    const units = Math.floor(Math.random() * 5);
    const end = units > 3 ? 'release' : 'settle';
    return (await this.internal(`/reservations/${String(held.body.reservationId)}/${end}`, end === 'settle' ? { units } : {})).status;
  }

  private internal(route: string, body: unknown) {
    return call(`${this.targets.user}/internal/v1/usage${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** Rotates the key, checks the old token is refused at once, then mints under the new key. */
  private async rotate(): Promise<number> {
    const account = this.rotating as Account;
    const rotated = await call(`${this.targets.user}/user-service/api-key/generate?currentApiKey=${account.apiKey}`);
    if (rotated.status !== 200) return rotated.status;
    const stale = account.token;
    account.apiKey = String(rotated.body.apiKey);
    account.token = await this.mint(account.apiKey);
    const refused = await this.balance({ ...account, token: stale });
    return refused === 401 ? 200 : 1000 + refused;
  }

  private refreshJwt(): void {
    this.jwt = signServiceJwt({ issuer: 'soak', audience: 'user', secret: this.targets.serviceJwtSecret, ttlSeconds: 300 });
  }
}
