/**
 * The workload's calls to the platform (CONTRACT §4, §7), each one recorded operation, and what
 * a client knows of an account: its keys by serial and the tokens it holds.
 */
import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import type { Credential } from './history';
import type { Answer, Recorder } from './recorder';

export interface Targets {
  auth: string;
  user: string;
  adminToken: string;
  serviceJwtSecret: string;
  /** Where the accounts' balance webhooks go. */
  webhookUrl: string;
}

export interface AccountModel {
  id: number;
  email: string;
  /** Every key the client was given, by serial; the last is the current one. */
  keys: string[];
  /** Tokens minted under the current key, by the id of the issue that minted them. */
  tokens: Array<{ op: number; token: string }>;
}

/** Every credential ever seen, for the client that presents stale ones. */
export interface Presentable {
  account: number;
  credential: Credential;
  secret: string;
}

const PRODUCT = 1;

export class Api {
  readonly seen: Presentable[] = [];

  constructor(
    private readonly targets: Targets,
    private readonly recorder: Recorder,
  ) {}

  private admin(method: string, body?: unknown): RequestInit {
    const headers = { authorization: `Bearer ${this.targets.adminToken}`, 'content-type': 'application/json' };
    return { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
  }

  /** An account with `credits` on the lookup pool and a webhook; undefined when creation did not answer 201. */
  async create(client: number, credits: number): Promise<AccountModel | undefined> {
    const email = `chaos-${randomUUID()}@example.test`;
    const { op, body } = await this.recorder.call(
      { client, f: 'create', account: 0, amount: credits },
      `${this.targets.user}/admin/v1/accounts`,
      this.admin('POST', { email, credits: { [PRODUCT]: credits } }),
    );
    if (op.status !== 201) return undefined;
    op.account = Number(body.id);
    op.credits = credits;
    const account = { id: op.account, email, keys: [String(body.apiKey)], tokens: [] };
    this.seen.push({ account: account.id, credential: { key: 0 }, secret: String(body.apiKey) });
    const hooked = await fetch(`${this.targets.user}/user-service/notification-settings?apiKey=${String(body.apiKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhook: { url: this.targets.webhookUrl, enabled: true } }),
    });
    if (hooked.status !== 200) throw new Error(`the webhook was not set: ${hooked.status} ${await hooked.text()}`);
    return account;
  }

  async issue(client: number, account: AccountModel): Promise<Answer> {
    const key = account.keys.length - 1;
    const answer = await this.recorder.call(
      { client, f: 'issue', account: account.id, credential: { key } },
      `${this.targets.auth}/oauth/token`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${Buffer.from(account.keys[key] as string).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ grantType: 'access_token', expiresIn: 3600 }),
      },
    );
    if (answer.op.type === 'ok' && key === account.keys.length - 1) {
      const token = String(answer.body.accessToken);
      account.tokens.push({ op: answer.op.id, token });
      this.seen.push({ account: account.id, credential: { token: answer.op.id }, secret: token });
    }
    return answer;
  }

  balance(client: number, account: number, credential: Credential, secret: string): Promise<Answer> {
    return this.recorder.call(
      { client, f: 'balance', account, credential },
      `${this.targets.user}/user-service/account-balance?productId=${PRODUCT}&apiKey=${encodeURIComponent(secret)}`,
    );
  }

  debit(client: number, account: number, credential: Credential, secret: string, requestId: string, settle = false): Promise<Answer> {
    const jwt = signServiceJwt({ issuer: 'chaos', audience: 'user', secret: this.targets.serviceJwtSecret, ttlSeconds: 300 });
    return this.recorder.call(
      { client, f: 'debit', account, credential, requestId, amount: 1, ...(settle ? { settle } : {}) },
      `${this.targets.user}/internal/v1/usage`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ credential: secret, productId: PRODUCT, units: 1, requestId }),
      },
    );
  }

  topUp(client: number, account: AccountModel, amount: number): Promise<Answer> {
    return this.recorder.call(
      { client, f: 'top-up', account: account.id, amount },
      `${this.targets.user}/admin/v1/accounts/${account.id}/credits`,
      this.admin('POST', { productId: PRODUCT, amount }),
    );
  }

  /** The customer's rotation with the current key, or (`byOperator`) the operator's, which needs no key. */
  async rotate(client: number, account: AccountModel, byOperator: boolean): Promise<Answer> {
    const from = account.keys.length - 1;
    const answer = byOperator
      ? await this.recorder.call(
          { client, f: 'rotate', account: account.id, from },
          `${this.targets.user}/admin/v1/accounts/${account.id}/api-key`,
          this.admin('POST'),
        )
      : await this.recorder.call(
          { client, f: 'rotate', account: account.id, from, credential: { key: from } },
          `${this.targets.user}/user-service/api-key/generate?currentApiKey=${account.keys[from] as string}`,
        );
    if (answer.op.type === 'ok') {
      account.keys.push(String(answer.body.apiKey));
      account.tokens = [];
      answer.op.to = account.keys.length - 1;
      this.seen.push({ account: account.id, credential: { key: answer.op.to }, secret: String(answer.body.apiKey) });
    }
    return answer;
  }

  setDisabled(client: number, account: AccountModel, disabled: boolean): Promise<Answer> {
    return this.recorder.call(
      { client, f: disabled ? 'disable' : 'enable', account: account.id },
      `${this.targets.user}/admin/v1/accounts/${account.id}`,
      this.admin('PATCH', { disabled }),
    );
  }
}
