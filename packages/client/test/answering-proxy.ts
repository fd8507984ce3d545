import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A canned answer the proxy gives instead of forwarding. */
export interface CannedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface AnsweringProxy {
  url: string;
  /** Requests that reached the proxy, with the time they arrived. */
  seen: Array<{ method: string; path: string; at: number; status: number }>;
  /** Queues answers for requests whose path starts with `pathPrefix`; later ones are forwarded. */
  answerNext(pathPrefix: string, ...answers: CannedAnswer[]): void;
  close(): Promise<void>;
}

/** Hop-by-hop and body framing headers are the proxy's own business. */
const SKIPPED_HEADERS = new Set(['host', 'connection', 'content-length', 'content-encoding', 'transfer-encoding', 'keep-alive']);

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * An HTTP proxy in front of one service that answers queued canned answers (429, 503…) first
 * and forwards everything else, so a test can put a real service behind a failure it chooses.
 */
export async function startAnsweringProxy(upstream: string): Promise<AnsweringProxy> {
  const queue: Array<{ pathPrefix: string; answer: CannedAnswer }> = [];
  const seen: AnsweringProxy['seen'] = [];

  async function forward(request: IncomingMessage, response: ServerResponse): Promise<number> {
    const headers = Object.entries(request.headers).filter(([name]) => !SKIPPED_HEADERS.has(name));
    const body = await readBody(request);
    const answer = await fetch(`${upstream}${request.url ?? '/'}`, {
      method: request.method ?? 'GET',
      headers: headers.map(([name, value]) => [name, String(value)]),
      ...(body.length > 0 ? { body } : {}),
    });
    const payload = Buffer.from(await answer.arrayBuffer());
    answer.headers.forEach((value, name) => {
      if (!SKIPPED_HEADERS.has(name)) response.setHeader(name, value);
    });
    response.writeHead(answer.status).end(payload);
    return answer.status;
  }

  const server = createServer((request, response) => {
    const at = Date.now();
    const path = request.url ?? '/';
    const index = queue.findIndex((entry) => path.startsWith(entry.pathPrefix));
    const canned = index >= 0 ? queue.splice(index, 1)[0]?.answer : undefined;
    const record = (status: number) => seen.push({ method: request.method ?? 'GET', path, at, status });
    if (canned) {
      record(canned.status);
      response.writeHead(canned.status, { 'Content-Type': 'application/json; charset=utf-8', ...canned.headers });
      response.end(canned.body === undefined ? '' : JSON.stringify(canned.body));
      return;
    }
    forward(request, response).then(record, (error: unknown) => {
      record(502);
      response.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answerNext(pathPrefix, ...answers) {
      for (const answer of answers) queue.push({ pathPrefix, answer });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
