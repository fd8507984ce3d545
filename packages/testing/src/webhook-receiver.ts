import { spawnSync } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got: the raw body as sent (signatures cover these exact bytes) and the headers. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered: a status, or `hang` (no answer: the sender times out). */
  answer: number | 'hang';
}

/** How the receiver answers the n-th request (0-based): a status, or `hang`. */
export type WebhookAnswer = (index: number, received: ReceivedWebhook) => number | 'hang';

/**
 * A real HTTPS server on loopback with a self-signed certificate made for it (openssl), which
 * only whoever is handed `ca` trusts (an agent option, or NODE_EXTRA_CA_CERTS for a child). It
 * keeps every request, and `verify` checks one with the Standard Webhooks library, as a customer's
 * receiver written from its documentation would.
 */
export interface WebhookReceiver {
  /** `https://127.0.0.1:<port>/hooks` (`localhost` and RECEIVER_NAME are in the certificate too). */
  url: string;
  /** `https://<RECEIVER_NAME>:<port>/hooks`: the receiver by a name only `network` resolves. */
  namedUrl: string;
  /**
   * A test network (@platform/webhooks TestNetwork) for a sender with the address rules ON:
   * RECEIVER_NAME resolves to 127.0.0.1, `names` to what they map to, any other name fails;
   * only the receiver's own endpoint (127.0.0.1:<port>) is exempt from the rules. Names under
   * `webhooks.test` pass the receiver's TLS check: a sender that connected would be delivered.
   */
  network(names?: Readonly<Record<string, readonly string[]>>): { resolve(host: string): Promise<string[]>; exempt: readonly string[] };
  /** The certificate (PEM), to trust it. */
  ca: string;
  /** The file holding `ca` (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  received: ReceivedWebhook[];
  answer(rule: WebhookAnswer): void;
  /** Resolves once at least `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  /** The parsed payload, after checking the signature, id and timestamp with `standardwebhooks` (throws when they do not verify). */
  verify(secret: string, received: ReceivedWebhook): { type: string; timestamp: string; data: Record<string, unknown> };
  close(): Promise<void>;
}

/** The receiver's test name: `.test` never resolves on the internet (RFC 6761). Its certificate holds every `*.webhooks.test`. */
export const RECEIVER_NAME = 'receiver.webhooks.test';

function selfSignedCertificate(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  const result = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,DNS:*.webhooks.test,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`openssl could not make a certificate: ${result.stderr}`);
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aap-webhook-receiver-'));
  const { key, cert, certFile } = selfSignedCertificate(dir);
  const received: ReceivedWebhook[] = [];
  const arrivals = new EventEmitter();
  let rule: WebhookAnswer = () => 200;
  const server = https.createServer({ key, cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const entry: ReceivedWebhook = { headers, body: Buffer.concat(chunks).toString('utf8'), answer: 200 };
      entry.answer = rule(received.length, entry);
      received.push(entry);
      arrivals.emit('request');
      if (entry.answer === 'hang') return;
      response.writeHead(entry.answer, { 'content-type': 'text/plain' }).end(entry.answer < 300 ? 'ok' : 'no');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hooks`,
    namedUrl: `https://${RECEIVER_NAME}:${port}/hooks`,
    network(names = {}) {
      const known: Record<string, readonly string[]> = { ...names, [RECEIVER_NAME]: ['127.0.0.1'] };
      return {
        resolve: (host) => {
          const addresses = known[host];
          if (addresses) return Promise.resolve([...addresses]);
          return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
        },
        exempt: [`127.0.0.1:${port}`],
      };
    },
    ca: cert,
    caFile: certFile,
    received,
    answer(next) {
      rule = next;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`webhook receiver: ${received.length} of ${count} requests after ${timeoutMs} ms`);
        await Promise.race([once(arrivals, 'request'), new Promise((resolve) => setTimeout(resolve, Math.min(left, 250)))]);
      }
      return received;
    },
    verify(secret, entry) {
      return new Webhook(secret).verify(entry.body, entry.headers) as ReturnType<WebhookReceiver['verify']>;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
