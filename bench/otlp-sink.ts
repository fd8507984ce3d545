import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** What the sink received: export requests (one per batch of spans) and their bytes. */
export interface OtlpSink {
  url: string;
  stats(): { requests: number; bytes: number };
  close(): Promise<void>;
}

/**
 * A local OTLP/HTTP endpoint for `pnpm bench --tracing`: it accepts every export (200, an empty
 * ExportTraceServiceResponse) and keeps only counts, so that the bench measures what tracing
 * costs the services, not a collector.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      requests += 1;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ requests, bytes }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
